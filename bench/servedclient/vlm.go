package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
)

// vlmRun says what runVLM asks.
type vlmRun struct {
	urls        []string // one server, or replicas the client spreads over
	model       string
	items       []item
	frames      int
	grouped     bool // a video's items together; false: items in a seeded shuffle
	concurrency int
	seed        uint64
	started     func() // called once the base frames are encoded
}

// baseFrames encodes n synthetic 16:9 frames (854x480, smooth gradients)
// as the client encodes decoded frames: openai.EncodeFrame, 448x252 JPEG.
func baseFrames(n int) ([]*openai.Image, error) {
	const w, h = 854, 480
	out := make([]*openai.Image, n)
	pix := make([]byte, 3*w*h)
	for f := range out {
		for y := range h {
			for x := range w {
				o := 3 * (y*w + x)
				pix[o] = byte(x + 3*f)
				pix[o+1] = byte(y + 11*f)
				pix[o+2] = byte((x + y + 5*f) / 2)
			}
		}
		im, err := openai.EncodeFrame(pix, w, h, 0)
		if err != nil {
			return nil, err
		}
		out[f] = im
	}
	return out, nil
}

// videoFrames are video v's frames: the base frames, each with a JPEG
// comment naming the video and frame after its start-of-image marker, so
// that every video's frames are distinct bytes of a real frame's size
// without encoding each (the server tells images apart by their bytes).
func videoFrames(base []*openai.Image, v int) []*openai.Image {
	out := make([]*openai.Image, len(base))
	for f, b := range base {
		c := fmt.Appendf(nil, "video %d frame %d", v, f)
		d := make([]byte, 0, len(b.Data)+len(c)+4)
		d = append(d, b.Data[:2]...) // FFD8
		d = append(d, 0xFF, 0xFE, byte((len(c)+2)>>8), byte(len(c)+2))
		d = append(d, c...)
		d = append(d, b.Data[2:]...)
		out[f] = &openai.Image{MIME: b.MIME, Data: d}
	}
	return out
}

// runVLM asks every item's question with its video's frames in time order
// (the full-video reader's in-order set, which every item of a video shares)
// through openai.Client.AskStream, the library's streaming path: grouped,
// one group a video; otherwise one group an item, the items in a seeded
// shuffle, as a run that ignored videos would send them.
func runVLM(ctx context.Context, r vlmRun) (openai.Stats, error) {
	c, err := openai.New(openai.Config{BaseURLs: r.urls, Model: r.model, Chat: true, MaxConcurrent: r.concurrency, Seed: 1})
	if err != nil {
		return openai.Stats{}, err
	}
	var groups [][]int // item indices per group
	if r.grouped {
		for i, it := range r.items {
			if i == 0 || it.video != r.items[i-1].video {
				groups = append(groups, nil)
			}
			groups[len(groups)-1] = append(groups[len(groups)-1], i)
		}
	} else {
		idx := rand.New(rand.NewPCG(r.seed, 0x17e)).Perm(len(r.items))
		for _, i := range idx {
			groups = append(groups, []int{i})
		}
	}
	base, err := baseFrames(r.frames)
	if err != nil {
		return openai.Stats{}, err
	}
	if r.started != nil {
		r.started()
	}
	next := 0
	return c.AskStream(ctx, func() (openai.Group, bool, error) {
		if next == len(groups) {
			return openai.Group{}, false, nil
		}
		g := openai.Group{Name: fmt.Sprint(next)}
		var fr []*openai.Image
		for _, i := range groups[next] {
			it := r.items[i]
			if len(g.Queries) == 0 || r.items[groups[next][0]].video != it.video {
				fr = videoFrames(base, it.video)
			}
			g.Queries = append(g.Queries, openai.Query{ID: fmt.Sprintf("item %d", i), Frames: fr,
				Prompt: letters.Parts{Kind: letters.KindVisual, Frames: len(fr), Question: it.question, Options: it.options}})
		}
		next++
		return g, true, nil
	}, func(openai.Group, []openai.QueryResult) error { return nil })
}
