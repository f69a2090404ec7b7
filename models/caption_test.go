package models

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
)

func openCaptioner(t *testing.T) *Captioner {
	rt, dir := tinyModels(t)
	enc, err := rt.NewSession(filepath.Join(dir, "captioner", "encoder_model.onnx"), gpu.CPUDevice(), FixedShapes)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := rt.NewSession(filepath.Join(dir, "captioner", "decoder_with_past_model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { enc.Close(); dec.Close() })
	c, err := NewCaptioner(enc, dec, nil, wordTokenizer{}, 101, 102)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCaptionerMatchesGreedyReference(t *testing.T) {
	c := openCaptioner(t)
	ctx := context.Background()
	imgs := randomImages(7, 5, 3, 32)
	c.MaxNewTokens, c.MaxBatch = 8, 3
	got, err := c.Caption(ctx, imgs)
	if err != nil {
		t.Fatal(err)
	}
	ref := *fixtures.capt
	for i := range imgs.N {
		want := ref.Generate(imgs.image(i), 8)
		if !slices.Equal(got[i].IDs, want) {
			t.Fatalf("image %d: ids %v, want %v (greedy without a cache)", i, got[i].IDs, want)
		}
		if got[i].Text != (wordTokenizer{}).Decode(want) {
			t.Fatalf("image %d: text %q", i, got[i].Text)
		}
	}

	// Make the fourth token of image 0 the end token: that caption must stop
	// there while the others run on.
	stop := got[0].IDs[3]
	c.eos, ref.EOS = stop, stop
	got, err = c.Caption(ctx, imgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0].IDs) > 4 || got[0].IDs[len(got[0].IDs)-1] != stop {
		t.Fatalf("image 0: %v does not stop at end token %d", got[0].IDs, stop)
	}
	for i := range imgs.N {
		if want := ref.Generate(imgs.image(i), 8); !slices.Equal(got[i].IDs, want) {
			t.Fatalf("with end token %d, image %d: ids %v, want %v", stop, i, got[i].IDs, want)
		}
	}
	if slices.IndexFunc(got, func(c Caption) bool { return len(c.IDs) == 8 }) < 0 {
		t.Fatalf("every caption stopped early: %v", got)
	}
}

// TestCaptionerWithFirstStepDecoder opens a folder holding Optimum's pair,
// decoder_model.onnx (first step, no past inputs) and
// decoder_with_past_model.onnx, and checks the pair decodes as the
// reference does.
func TestCaptionerWithFirstStepDecoder(t *testing.T) {
	rt, src := tinyModels(t)
	dir := t.TempDir()
	if err := fixtures.capt.WriteDirWithFirst(filepath.Join(dir, "captioner")); err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join(src, "captioner", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "captioner", "tokenizer.json"), tok, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(filepath.Join(dir, ManifestFile), []byte(`{"roles": {"captioner": {"dir": "captioner", "max_new_tokens": 6}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.OpenCaptioner(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.first == nil {
		t.Fatal("decoder_model.onnx was not used for the first step")
	}
	if _, ok := c.first.Input("past_key_values.0.key"); ok {
		t.Fatal("the first-step decoder has past inputs")
	}
	imgs := randomImages(12, 3, 3, 32)
	got, err := c.Caption(context.Background(), imgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range imgs.N {
		if want := fixtures.capt.Generate(imgs.image(i), 6); !slices.Equal(got[i].IDs, want) {
			t.Fatalf("image %d: %v, want %v", i, got[i].IDs, want)
		}
	}
}
