package features

import (
	"context"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// countingVLM makes a 1x1x2 tensor per frame from its first pixel and its
// width, and counts the frames it was asked to preprocess.
type countingVLM struct{ asked int }

func (c *countingVLM) Frames(_ context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	c.asked += len(frames)
	b := models.ImageBatch{N: len(frames), C: 1, H: 1, W: 2}
	for _, f := range frames {
		b.Data = append(b.Data, float32(f.Pix[0]), float32(f.Width))
	}
	return b, nil
}
func (c *countingVLM) Fits(models.VLMPrompt) error { return nil }
func (c *countingVLM) Score(context.Context, []models.VLMPrompt) ([][]float64, error) {
	return nil, nil
}

// TestPrepOnce: an ONNX reader's frames are preprocessed once per video,
// however many sets, permutations and halvings ask for them, and every
// batch is the one the reader itself makes of the same frames.
func TestPrepOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	frames := make([]imageprep.Frame, 5)
	for i := range frames {
		frames[i] = imageprep.Frame{Pix: []byte{byte(10 * i), 0, 0}, Width: 1 + i, Height: 1, Stride: 3}
	}
	direct, counted := &countingVLM{}, &countingVLM{}
	once := vlmFrames(counted)
	for _, ask := range [][]int{{0, 1, 2}, {2, 1, 0}, {4, 4, 3}, {0}, {1, 3}} {
		var fs []imageprep.Frame
		for _, i := range ask {
			fs = append(fs, frames[i])
		}
		want, _ := direct.Frames(ctx, fs)
		got, err := once.Frames(ctx, fs)
		if err != nil {
			t.Fatal(err)
		}
		if got.N != want.N || got.C != want.C || got.H != want.H || got.W != want.W || !slices.Equal(got.Data, want.Data) {
			t.Errorf("frames %v: batch %+v; want the reader's %+v", ask, got, want)
		}
	}
	if counted.asked != len(frames) {
		t.Errorf("%d frames preprocessed; want each of the %d once", counted.asked, len(frames))
	}
}
