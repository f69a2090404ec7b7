package models_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// The GPU frame path end to end: NVDEC decodes on the primary context,
// the sampled pictures go from its surfaces through the preprocessing
// kernels into the tower on the CUDA provider, and only the embeddings
// come back. Where any part is missing it falls back to the host path.
func ExampleDeviceFrames_EmbedDecoded() {
	ctx := context.Background()
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: gpu.Spec{CUDA: true, Indices: []int{0}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	man, err := models.LoadManifest("models")
	if err != nil {
		fmt.Println(err)
		return
	}
	it, err := rt.OpenImageText(man, gpu.Device{Kind: gpu.CUDA})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer it.Close()
	df := it.OpenDeviceFrames(rt, gpu.Device{Kind: gpu.CUDA})
	defer df.Close()
	gpu := decode.NewSharedGPU(0)
	defer gpu.Close()
	dec, err := decode.Open(ctx, "video.mp4", decode.Options{HWAccel: "cuda", GPU: gpu})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dec.Close()
	times := []time.Duration{0, time.Second, 2 * time.Second}
	vecs, err := df.EmbedDecoded(ctx, len(times), func(yield func(int, nv12.Frame) error) error {
		return dec.FramesOnDevice(ctx, times, yield)
	})
	if err != nil && (errors.Is(err, decode.ErrNotOnDevice) || !df.OnDevice()) {
		// The host path: RGB frames decoded to memory, then EmbedFrames.
		frames, ferr := dec.Frames(ctx, times, decode.Size{Short: 224}, nil)
		if ferr != nil {
			fmt.Println(ferr)
			return
		}
		imgs := make([]imageprep.Frame, len(frames))
		for i, f := range frames {
			imgs[i] = imageprep.Frame{Pix: f.RGB, Width: f.Width, Height: f.Height}
		}
		vecs, err = df.EmbedFrames(ctx, imgs)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(vecs), "embeddings")
}
