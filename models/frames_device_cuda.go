//go:build cuda

package models

import (
	"context"
	"errors"
	"fmt"

	kcuda "github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// cudaFramePath is the GPU frame path: the device's primary context (the
// one ONNX Runtime's CUDA provider uses, so the kernel's output address is
// valid there), the preprocessing kernels, the Prep of the frame size in
// use, and the image tower bound on the same device.
type cudaFramePath struct {
	m     *ImageText
	g     *kcuda.GPU
	pd    kcuda.PrepDevice
	tower *BoundTower
	prep  kcuda.DevicePrep // for frames of w x h; nil before the first
	w, h  int
}

// openDeviceFramePath opens the device, its kernels and the bound tower;
// on error it closes what it opened.
func openDeviceFramePath(r *Runtime, m *ImageText, dev Device) (_ deviceFramePath, err error) {
	p := &cudaFramePath{m: m}
	defer func() {
		if err != nil {
			err = errors.Join(err, p.close())
		}
	}()
	// Preprocessing runs no GEMM: cuBLAS is not needed.
	if p.g, err = kcuda.Open(dev.ID, kcuda.OpenOptions{NoCUBLAS: true}); err != nil {
		return nil, err
	}
	if p.pd, err = p.g.OpenPrep(); err != nil {
		return nil, err
	}
	if p.tower, err = m.OpenBoundTower(r, dev); err != nil {
		return nil, err
	}
	return p, nil
}

// embed takes frames in runs of one size and of up to the tower's batch:
// each run is uploaded, preprocessed into the device tensor, synchronised
// and read by the tower in place.
func (p *cudaFramePath) embed(ctx context.Context, frames []imageprep.Frame) ([][]float32, error) {
	return p.runs(ctx, len(frames), func(i int) (int, int) { return frames[i].Width, frames[i].Height },
		func(lo, hi int) error { return p.prep.Load(frames[lo:hi]) })
}

// embedNV12 is embed for pictures NVDEC left on the device: converted to
// RGB there by prep_nv12, so nothing but the embeddings crosses the bus.
func (p *cudaFramePath) embedNV12(ctx context.Context, frames []kcuda.NV12Frame) ([][]float32, error) {
	return p.runs(ctx, len(frames), func(i int) (int, int) { return frames[i].Width, frames[i].Height },
		func(lo, hi int) error { return p.prep.LoadNV12(frames[lo:hi]) })
}

// runs cuts n frames of the sizes size(i) into runs for one Prep and one
// tower batch, and for each loads it with load, preprocesses and embeds it.
func (p *cudaFramePath) runs(ctx context.Context, n int, size func(int) (int, int), load func(lo, hi int) error) ([][]float32, error) {
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
		if err := p.prep.Run(ctx, k); err != nil {
			return nil, fmt.Errorf("frames %d..%d: %w", i, i+k-1, err)
		}
		// The kernels run on the Prep's stream, ONNX Runtime on its own:
		// the tensor must be complete before the tower reads it.
		if err := p.prep.Sync(); err != nil {
			return nil, fmt.Errorf("frames %d..%d: %w", i, i+k-1, err)
		}
		ptr, bytes := p.prep.DeviceOutput()
		vecs, err := p.tower.EmbedDevice(ctx, ptr, bytes, k)
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
func (p *cudaFramePath) usePlan(w, h, batch int) error {
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
	plan, err := p.m.prep.Plan(w, h)
	if err != nil {
		return err
	}
	prep, err := p.pd.NewPrep(plan, batch)
	if err != nil {
		return fmt.Errorf("preprocess %dx%d frames: %w", w, h, err)
	}
	dp, ok := prep.(kcuda.DevicePrep)
	if !ok {
		return errors.Join(fmt.Errorf("the %T preprocessor keeps no tensor on the device", prep), prep.Close())
	}
	p.prep, p.w, p.h = dp, w, h
	return nil
}

func (p *cudaFramePath) close() error {
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
	if p.g != nil {
		errs = append(errs, p.g.Close())
		p.g = nil
	}
	return errors.Join(errs...)
}
