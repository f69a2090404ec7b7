//go:build cuda

package gpuprep

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/vidscreen/vidscreen/gpu/cudactx"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// openOrSkip retains cuda:0's primary context or skips, naming why no
// device answered (on a machine with only the toolkit's stub libcuda,
// cuInit's CUDA_ERROR_STUB_LIBRARY).
func openOrSkip(t *testing.T) *cudactx.Context {
	t.Helper()
	c, err := cudactx.Retain(0)
	if err != nil {
		t.Skipf("no GPU answers: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// TestGPUPrepEqualsImageprep holds the GPU's preprocessing kernels to
// imageprep bit for bit, as TestHostPrepEqualsImageprep holds their Go
// port: test images, random and strided frames, every filter, padding
// crops, and a 1080p batch. It skips when no GPU answers.
func TestGPUPrepEqualsImageprep(t *testing.T) {
	c := openOrSkip(t)
	dev, err := OpenGPU(c)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
	}()
	images, _, _ := testImages(t)
	rng := rand.New(rand.NewPCG(23, 6))
	frames := []imageprep.Frame{images["a"], images["b"], images["tall"], randomFrame(rng, 90, 160, 5), randomFrame(rng, 1, 1, 0),
		randomFrame(rng, 1920, 1080, 0), edgeFrame(1920, 1080), randomFrame(rng, 1920, 1080, 64)}
	for _, cfg := range []string{
		"clip-vit-base-patch32.json", "siglip-base-patch16-224.json",
		`{"image_processor_type": "SiglipImageProcessor", "size": {"height": 448, "width": 448}}`,
		`{"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 30}, "crop_size": {"height": 36, "width": 52}}`,
		`{"image_processor_type": "ViTImageProcessor", "resample": 4, "size": {"height": 300, "width": 200}}`,
		`{"image_processor_type": "SiglipImageProcessor", "resample": 1, "size": {"height": 50, "width": 50}}`,
		`{"image_processor_type": "CLIPImageProcessor", "do_resize": false, "crop_size": {"height": 64, "width": 80}}`,
	} {
		p, err := imageprep.New(config(t, cfg), imageprep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, len(frames)*p.FrameLen())
		if err := p.Batch(context.Background(), frames, want); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(want))
		if err := Preprocess(context.Background(), dev, p, frames, got, 2); err != nil {
			t.Fatal(err)
		}
		if at, d := sameBits(got, want); at >= 0 {
			t.Fatalf("%s: frame %d value %d = %v, imageprep %v (max abs diff %g)", cfg, at/p.FrameLen(), at%p.FrameLen(), got[at], want[at], d)
		}
	}
}
