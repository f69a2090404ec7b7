package gpuprep

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A PrepDevice turns batches of decoded RGB frames into an image tower's
// input tensor (float32 NCHW, resized, cropped and normalised) in its own
// memory, with the output of models/imageprep's Processor bit for bit: it
// runs the same fixed-point passes from the tables of an imageprep.Plan.
// The GPU implements it in gpu_cuda.go (OpenGPU), Host in host.go
// with a Go port of the kernels' loops, so everything but the device code
// is tested on any machine.
type PrepDevice interface {
	// NewPrep allocates, for frames of plan's size, room for batch frames,
	// the plan's tables, the intermediate image and the output tensor.
	NewPrep(plan *imageprep.Plan, batch int) (Prep, error)
	// Close releases what opening the device for preprocessing took (the
	// GPU's kernel module); Preps must be closed first.
	Close() error
}

// A Prep is one plan's buffers on a device; it is used by one goroutine.
type Prep interface {
	// Load copies frames (each of the plan's size) into batch slots
	// 0..len(frames)-1.
	Load(frames []imageprep.Frame) error
	// Run queues the preprocessing of slots 0..n-1 into the output tensor.
	Run(ctx context.Context, n int) error
	// Sync waits for the queued work.
	Sync() error
	// Output waits for the queued work and copies the first n frames of
	// the tensor (n*3*OutH*OutW values) to dst.
	Output(dst []float32, n int) error
	// Close frees the device memory; the Prep is unusable after.
	Close() error
}

// checkFrames is Load's check on both devices: the plan's size, and
// enough pixels for it.
func checkFrames(plan *imageprep.Plan, batch int, frames []imageprep.Frame) error {
	if len(frames) > batch {
		return fmt.Errorf("preprocess: %d frames for a batch of %d", len(frames), batch)
	}
	for i, f := range frames {
		if f.Width != plan.SrcW || f.Height != plan.SrcH {
			return fmt.Errorf("preprocess: frame %d is %dx%d, the plan is for %dx%d", i, f.Width, f.Height, plan.SrcW, plan.SrcH)
		}
		stride := frameStride(f)
		if stride < 3*f.Width {
			return fmt.Errorf("preprocess: frame %d: stride %d under 3 x width %d", i, stride, f.Width)
		}
		if need := (f.Height-1)*stride + 3*f.Width; len(f.Pix) < need {
			return fmt.Errorf("preprocess: frame %d: %d bytes of pixels, %dx%d RGB needs %d", i, len(f.Pix), f.Width, f.Height, need)
		}
	}
	return nil
}

func frameStride(f imageprep.Frame) int {
	if f.Stride == 0 {
		return 3 * f.Width
	}
	return f.Stride
}

// Preprocess writes frames as one NCHW tensor into dst, as
// imageprep.Processor.Batch does, on d: frames are taken in runs of one
// size (one Plan and Prep per size, kept while the size repeats, as the
// frames of one video do) and batches of up to batch frames, and each
// batch's tensor is copied back into its place in dst. It is the device
// path's reference use and its test; the image tower's GPU path keeps the
// tensor on the device instead.
func Preprocess(ctx context.Context, d PrepDevice, p *imageprep.Processor, frames []imageprep.Frame, dst []float32, batch int) (err error) {
	if batch <= 0 {
		return fmt.Errorf("preprocess: batch %d", batch)
	}
	fl := p.FrameLen()
	if len(dst) < len(frames)*fl {
		return fmt.Errorf("preprocess: output holds %d values, %d frames need %d", len(dst), len(frames), len(frames)*fl)
	}
	var prep Prep
	var w, h int
	defer func() {
		if prep != nil {
			err = errors.Join(err, prep.Close())
		}
	}()
	for i := 0; i < len(frames); {
		f := frames[i]
		if prep == nil || f.Width != w || f.Height != h {
			if prep != nil {
				if err := prep.Close(); err != nil {
					prep = nil
					return err
				}
				prep = nil
			}
			plan, err := p.Plan(f.Width, f.Height)
			if err != nil {
				return fmt.Errorf("frame %d: %w", i, err)
			}
			if prep, err = d.NewPrep(plan, batch); err != nil {
				return fmt.Errorf("preprocess %dx%d frames: %w", f.Width, f.Height, err)
			}
			w, h = f.Width, f.Height
		}
		n := 1
		for n < batch && i+n < len(frames) && frames[i+n].Width == w && frames[i+n].Height == h {
			n++
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := prep.Load(frames[i : i+n]); err != nil {
			return fmt.Errorf("frames %d..%d: %w", i, i+n-1, err)
		}
		if err := prep.Run(ctx, n); err != nil {
			return fmt.Errorf("frames %d..%d: %w", i, i+n-1, err)
		}
		if err := prep.Output(dst[i*fl:(i+n)*fl], n); err != nil {
			return fmt.Errorf("frames %d..%d: %w", i, i+n-1, err)
		}
		i += n
	}
	return nil
}
