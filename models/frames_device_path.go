package models

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// deviceTower is what the frame path needs of the image tower: a
// BoundTower on the GPU (a fake in the tests).
type deviceTower interface {
	MaxBatch() int
	EmbedDevice(ctx context.Context, ptr uintptr, bytes int64, n int) ([][]float32, error)
	Close() error
}

// framePath is the GPU frame path's logic, over interfaces so that the host
// tests run it: the preprocessing device (gpuprep's GPU, opened on the
// primary context that ONNX Runtime's CUDA provider uses, so the kernel's
// output address is valid there), the Prep of the frame size in use, and
// the tower bound on the same device. frames_device_cuda.go opens it.
type framePath struct {
	plans *imageprep.Processor
	pd    gpuprep.PrepDevice
	tower deviceTower
	prep  gpuprep.DevicePrep // for frames of w x h; nil before the first
	w, h  int
	// closeDevice releases what opened pd (the GPU's context); may be nil.
	closeDevice func() error
}

// embed takes frames in runs of one size and of up to the tower's batch:
// each run is uploaded, preprocessed into the device tensor, synchronised
// and read by the tower in place.
func (p *framePath) embed(ctx context.Context, frames []imageprep.Frame) ([][]float32, error) {
	return p.runs(ctx, len(frames), func(i int) (int, int) { return frames[i].Width, frames[i].Height },
		func(lo, hi int) error { return p.prep.Load(frames[lo:hi]) })
}

// embedDecoded takes the pictures visit hands over into batches: each is
// converted into the next slot (and the stream synchronised, so the
// decoder may reuse its surface when yield returns), and a batch is run
// when full, when the picture size changes, and at the end.
func (p *framePath) embedDecoded(ctx context.Context, n int, visit NV12Visitor) ([][]float32, error) {
	out := make([][]float32, n)
	batch := p.tower.MaxBatch()
	var rows []int // out's indices of the batch's slots
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		vecs, err := p.embedSlots(ctx, len(rows))
		if err != nil {
			return fmt.Errorf("pictures %v: %w", rows, err)
		}
		for k, i := range rows {
			out[i] = vecs[k]
		}
		rows = rows[:0]
		return nil
	}
	err := visit(func(i int, f nv12.Frame) error {
		if i < 0 || i >= n || out[i] != nil || slices.Contains(rows, i) {
			return fmt.Errorf("picture index %d: want each of 0..%d once", i, n-1)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(rows) == batch || (p.prep != nil && (f.Width != p.w || f.Height != p.h)) {
			if err := flush(); err != nil {
				return err
			}
		}
		if err := p.usePlan(f.Width, f.Height, batch); err != nil {
			return fmt.Errorf("picture %d: %w", i, err)
		}
		if err := p.prep.LoadNV12(len(rows), []nv12.Frame{f}); err != nil {
			return fmt.Errorf("picture %d: %w", i, err)
		}
		if err := p.prep.Sync(); err != nil {
			return fmt.Errorf("picture %d: %w", i, err)
		}
		rows = append(rows, i)
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return nil, err
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("picture %d of %d was not handed over", i, n)
		}
	}
	return out, nil
}

// embedSlots preprocesses the first k slots of the batch into the device
// tensor and has the tower read it in place.
func (p *framePath) embedSlots(ctx context.Context, k int) ([][]float32, error) {
	if err := p.prep.Run(ctx, k); err != nil {
		return nil, err
	}
	// The kernels run on the Prep's stream, ONNX Runtime on its own:
	// the tensor must be complete before the tower reads it.
	if err := p.prep.Sync(); err != nil {
		return nil, err
	}
	ptr, bytes := p.prep.DeviceOutput()
	return p.tower.EmbedDevice(ctx, ptr, bytes, k)
}

// runs cuts n frames of the sizes size(i) into runs for one Prep and one
// tower batch, and for each loads it with load, preprocesses and embeds it.
func (p *framePath) runs(ctx context.Context, n int, size func(int) (int, int), load func(lo, hi int) error) ([][]float32, error) {
	out := make([][]float32, 0, n)
	batch := p.tower.MaxBatch()
	for i := 0; i < n; {
		w, h := size(i)
		if err := p.usePlan(w, h, batch); err != nil {
			return nil, fmt.Errorf("frame %d: %w", i, err)
		}
		k := 1
		for k < batch && i+k < n {
			if w2, h2 := size(i + k); w2 != w || h2 != h {
				break
			}
			k++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := load(i, i+k); err != nil {
			return nil, fmt.Errorf("frames %d..%d: %w", i, i+k-1, err)
		}
		vecs, err := p.embedSlots(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("frames %d..%d: %w", i, i+k-1, err)
		}
		out = append(out, vecs...)
		i += k
	}
	return out, nil
}

// usePlan keeps the Prep when the frame size repeats (the frames of one
// video) and makes the next size's otherwise.
func (p *framePath) usePlan(w, h, batch int) error {
	if p.prep != nil && w == p.w && h == p.h {
		return nil
	}
	if p.prep != nil {
		err := p.prep.Close()
		p.prep = nil
		if err != nil {
			return err
		}
	}
	plan, err := p.plans.Plan(w, h)
	if err != nil {
		return err
	}
	prep, err := p.pd.NewPrep(plan, batch)
	if err != nil {
		return fmt.Errorf("preprocess %dx%d frames: %w", w, h, err)
	}
	dp, ok := prep.(gpuprep.DevicePrep)
	if !ok {
		return errors.Join(fmt.Errorf("the %T preprocessor keeps no tensor on the device", prep), prep.Close())
	}
	p.prep, p.w, p.h = dp, w, h
	return nil
}

func (p *framePath) close() error {
	var errs []error
	if p.prep != nil {
		errs = append(errs, p.prep.Close())
		p.prep = nil
	}
	if p.tower != nil {
		errs = append(errs, p.tower.Close())
		p.tower = nil
	}
	if p.pd != nil {
		errs = append(errs, p.pd.Close())
		p.pd = nil
	}
	if p.closeDevice != nil {
		errs = append(errs, p.closeDevice())
		p.closeDevice = nil
	}
	return errors.Join(errs...)
}
