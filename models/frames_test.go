package models

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// randomFrames returns n RGB frames of w x h random pixels.
func randomFrames(seed uint64, n, w, h int) []imageprep.Frame {
	r := rand.New(rand.NewPCG(seed, 3))
	fs := make([]imageprep.Frame, n)
	for i := range fs {
		pix := make([]byte, 3*w*h)
		for k := range pix {
			pix[k] = byte(r.IntN(256))
		}
		fs[i] = imageprep.Frame{Pix: pix, Width: w, Height: h}
	}
	return fs
}

// TestFramesGoThroughThePreprocessor checks that the roles opened from a
// manifest take decoded frames: resized and normalised by the folder's
// preprocessor_config.json, then run as the same images would be.
func TestFramesGoThroughThePreprocessor(t *testing.T) {
	rt, dir := tinyModels(t)
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	frames := randomFrames(1, 3, 64, 48)

	it, err := rt.OpenImageText(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	got, err := it.EmbedFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := imageprep.ReadConfig(dir + "/clip/preprocessor_config.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := imageprep.New(*cfg, imageprep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	batch := ImageBatch{N: 3, C: 3, H: 32, W: 32, Data: make([]float32, 3*p.FrameLen())}
	if err := p.Batch(ctx, frames, batch.Data); err != nil {
		t.Fatal(err)
	}
	for i := range frames {
		closeTo(t, "frame "+itoa(i), got[i], unit32(fixtures.clip.ImageEmbed(batch.image(i))), 2e-5)
	}

	c, err := rt.OpenCaptioner(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	caps, err := c.CaptionFrames(ctx, frames)
	if err != nil {
		t.Fatal(err)
	}
	for i := range frames {
		if want := fixtures.capt.Generate(batch.image(i), 8); !slices.Equal(caps[i].IDs, want) {
			t.Fatalf("frame %d: caption %v, want %v", i, caps[i].IDs, want)
		}
	}

	v, err := rt.OpenVLMReader(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	imgs, err := v.Frames(ctx, frames[:2])
	if err != nil {
		t.Fatal(err)
	}
	if imgs.N != 2 || !slices.Equal(imgs.Data, batch.Data[:2*p.FrameLen()]) {
		t.Fatalf("VLM frames differ from the preprocessor's batch")
	}
	if _, err := v.Score(ctx, []VLMPrompt{{Text: "<image><image> answer", Images: imgs, Options: 2}}); err != nil {
		t.Fatal(err)
	}
}
