package models

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/chattemplate"
	"github.com/vidscreen/vidscreen/models/letters"
)

func openVLM(t *testing.T) *VLMReader {
	rt, dir := tinyModels(t)
	var ss []*Session
	for _, f := range []string{"vision_encoder.onnx", "embed_tokens.onnx", "decoder_model.onnx"} {
		s, err := rt.NewSession(filepath.Join(dir, "vlm", f), gpu.CPUDevice(), DynamicShapes)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	t.Cleanup(func() {
		for _, s := range ss {
			s.Close()
		}
	})
	v, err := NewVLMReader(ss[0], ss[1], ss[2], wordTokenizer{}, 101, RoleSpec{MaxLength: 120})
	if err != nil {
		t.Fatal(err)
	}
	v.MaxBatch = 2
	return v
}

func TestVLMReaderMatchesReference(t *testing.T) {
	v := openVLM(t)
	frames := randomImages(9, 6, 3, 32)
	prompts := []VLMPrompt{
		{Text: "frame <image> what happens? a. x b. y answer", Images: frames.slice(0, 1), Options: 2},
		{Text: "<image> <image> <image> which is it a b c d", Images: frames.slice(1, 4), Options: 4},
		{Text: "no frames here, blind answer:", Options: 3},
		{Text: "<image><image>", Images: frames.slice(4, 6), Options: 5},
	}
	got, err := v.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range prompts {
		// The reference gets the same pieces: [CLS], then text ids and
		// images in order.
		pieces := []any{[]int{101}}
		texts := splitPlaceholders(p.Text)
		for k, tx := range texts {
			if k > 0 {
				pieces = append(pieces, p.Images.image(k-1))
			}
			if ids, _ := (wordTokenizer{}).Encode(tx, false); len(ids) > 0 {
				pieces = append(pieces, ids)
			}
		}
		logits := fixtures.vlm.Logits(pieces...)
		want := v.letters.score(logits.Row(logits.Rows-1), p.Options)
		for k := range want {
			if math.Abs(got[i][k]-want[k]) > 1e-4 {
				t.Fatalf("prompt %d letter %c: %g, want %g", i, 'A'+k, got[i][k], want[k])
			}
		}
	}
}

func TestVLMReaderRejectsMismatchedPlaceholders(t *testing.T) {
	v := openVLM(t)
	_, err := v.Score(context.Background(), []VLMPrompt{{Text: "<image> only one", Images: randomImages(1, 2, 3, 32), Options: 2}})
	if err == nil {
		t.Fatal("one placeholder for two images accepted")
	}
}

func splitPlaceholders(s string) []string { return strings.Split(s, ImagePlaceholder) }

// TestVLMReaderPlacesImagesByTheChatTemplate: with a chat template, the
// prompt is the template's text (no start token added), and each image
// token it writes is replaced by the next image's feature rows, its
// wrappers kept; the scores are the reference model's on those pieces. A
// template that writes fewer image tokens than images is refused.
func TestVLMReaderPlacesImagesByTheChatTemplate(t *testing.T) {
	v := openVLM(t)
	chat, err := chattemplate.Parse("test", "{% for m in messages %}<{{ m['role'] }}> {% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}[ <img> ] {% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %} </{{ m['role'] }}> {% endfor %}", nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := letters.ParseWording("prompts.json", []byte(`{"visual": "{n} frames: {question} {options}"}`))
	if err != nil {
		t.Fatal(err)
	}
	v.Prompting, v.ImageToken = Prompting{Chat: chat, Wording: w}, wordID("<img>")
	frames := randomImages(11, 2, 3, 32)
	parts := letters.Parts{Kind: letters.KindVisual, Question: "what moves?", Options: []string{"a car", "a dog"}, Frames: 2}
	got, err := v.Score(context.Background(), []VLMPrompt{{Images: frames, Options: 2, Parts: parts}})
	if err != nil {
		t.Fatal(err)
	}
	text := "<user> [ <img> ] [ <img> ] 2 frames: what moves? A. a car\nB. a dog </user> <assistant> Answer:"
	var pieces []any
	img := 0
	for _, word := range strings.Fields(text) {
		if word == "<img>" {
			pieces = append(pieces, frames.image(img))
			img++
			continue
		}
		pieces = append(pieces, []int{wordID(strings.ToLower(word))})
	}
	logits := fixtures.vlm.Logits(pieces...)
	want := v.letters.score(logits.Row(logits.Rows-1), 2)
	for k := range want {
		if math.Abs(got[0][k]-want[k]) > 1e-4 {
			t.Fatalf("letter %c: %g, want %g", 'A'+k, got[0][k], want[k])
		}
	}
	v.ImageToken = wordID("a") // twice in the text, for one image
	if _, err := v.Score(context.Background(), []VLMPrompt{{Images: frames.slice(0, 1), Options: 2, Parts: parts}}); err == nil || !strings.Contains(err.Error(), "image tokens") {
		t.Errorf("image tokens that do not match the images: %v", err)
	}
}
