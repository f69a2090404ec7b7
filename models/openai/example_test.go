package openai_test

import (
	"context"
	"fmt"
	"github.com/vidscreen/vidscreen/models/letters"
	"strings"

	"github.com/vidscreen/vidscreen/models/openai"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// A served reader answers one video's questions: a frames reader and a
// blind reader under two option orders, sent together so the server's
// prefix cache holds the frames. The test server's "model" picks the letter
// shown beside "a dog".
func Example() {
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		for _, line := range strings.Split(r.User(), "\n") {
			if l, text, ok := strings.Cut(line, ". "); ok && text == "a dog" {
				return openaitest.Reply{Top: map[string]float64{" " + l: 0.9, "The": 0.1}}
			}
		}
		return openaitest.Reply{Top: map[string]float64{"The": 1}}
	}})
	defer srv.Close()
	c, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "test-model", MaxConcurrent: 8})
	if err != nil {
		panic(err)
	}
	pix := make([]byte, 3*640*360) // one decoded frame, shrunk to 448x252 and sent as JPEG
	frame, err := openai.EncodeFrame(pix, 640, 360, 0)
	if err != nil {
		panic(err)
	}
	opts := []string{"a cat", "a dog", "a bird"}
	q := "What runs across the yard?"
	group := openai.Group{Name: "video-1", Queries: []openai.Query{
		{ID: "item-1/frames", Frames: []*openai.Image{frame}, Prompt: letters.Parts{Kind: letters.KindVisual, Question: q, Options: opts}},
		{ID: "item-1/blind#0", Prompt: letters.Parts{Kind: letters.KindBlind, Question: q, Options: opts}, Order: []int{2, 0, 1}},
		{ID: "item-1/blind#1", Prompt: letters.Parts{Kind: letters.KindBlind, Question: q, Options: opts}, Order: []int{1, 2, 0}},
	}}
	res, stats := c.AskGroups(context.Background(), []openai.Group{group})
	for i, r := range res[0] {
		a := r.Answer
		fmt.Printf("%s: %s (%s, prefill %v, letter %s)\n", group.Queries[i].ID, opts[a.Choice], a.Mode, a.Prefill, a.Scores.Letters[a.Scores.Best()])
	}
	fmt.Printf("%d requests, %d images\n", stats.Requests, stats.Images)
	// Output:
	// item-1/frames: a dog (logprobs, prefill true, letter B)
	// item-1/blind#0: a dog (logprobs, prefill true, letter C)
	// item-1/blind#1: a dog (logprobs, prefill true, letter A)
	// 3 requests, 1 images
}
