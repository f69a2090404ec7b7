package models

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
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
