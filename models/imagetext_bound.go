package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
)

// A BoundTower runs an ImageText's vision tower through an IoBinding: its
// input is a tensor the caller holds (a Go buffer on the CPU, or on a GPU
// the preprocessing kernel's output in device memory) and its output is
// written into a buffer of the tower's own, so no tensor is copied on the
// way in. On the CPU its embeddings are EmbedImages' bit for bit. It is
// used by one goroutine.
type BoundTower struct {
	m   *ImageText
	s   *BoundSession
	b   *Binding
	out []float32 // MaxBatch x dim, written by the runs
}

// OpenBoundTower loads m's vision tower a second time, as a BoundSession
// on dev. The ImageText must outlive the tower.
func (m *ImageText) OpenBoundTower(r *Runtime, dev gpu.Device) (_ *BoundTower, err error) {
	if m.MaxBatch <= 0 {
		return nil, fmt.Errorf("%s: MaxBatch %d", m.vision.Path(), m.MaxBatch)
	}
	s, err := r.NewBoundSession(m.vision.Path(), dev, FixedShapes)
	if err != nil {
		return nil, err
	}
	t := &BoundTower{m: m, s: s, out: make([]float32, m.MaxBatch*m.dim)}
	if t.b, err = s.NewBinding(); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return t, nil
}

// Device returns where the tower runs.
func (t *BoundTower) Device() gpu.Device { return t.s.Device() }

// MaxBatch is the most images one run takes (the ImageText's MaxBatch when
// the tower was opened).
func (t *BoundTower) MaxBatch() int { return len(t.out) / t.m.dim }

// EmbedHost returns the unit embeddings of preprocessed images in Go
// memory, in runs of up to MaxBatch images read in place.
func (t *BoundTower) EmbedHost(ctx context.Context, b ImageBatch) ([][]float32, error) {
	if err := t.checkImages(b); err != nil {
		return nil, err
	}
	var out [][]float32
	for lo := 0; lo < b.N; lo += t.MaxBatch() {
		part := b.slice(lo, min(b.N, lo+t.MaxBatch()))
		in, err := t.s.HostTensor(part.Data, int64(part.N), int64(part.C), int64(part.H), int64(part.W))
		if err != nil {
			return nil, err
		}
		vecs, err := t.run(ctx, in, part.N)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// EmbedDevice returns the unit embeddings of n preprocessed images (NCHW
// float32, the tower's size) at ptr in the GPU memory of the tower's
// device; bytes is the buffer's size. The images must be written (their
// stream synchronised) before the call, and n at most MaxBatch.
func (t *BoundTower) EmbedDevice(ctx context.Context, ptr uintptr, bytes int64, n int) ([][]float32, error) {
	if n <= 0 || n > t.MaxBatch() {
		return nil, fmt.Errorf("%s: %d images in one device run; want 1 to %d", t.s.Path(), n, t.MaxBatch())
	}
	m := t.m
	in, err := t.s.DeviceTensor(ptr, bytes, int64(n), int64(m.c), int64(m.h), int64(m.w))
	if err != nil {
		return nil, err
	}
	return t.run(ctx, in, n)
}

func (t *BoundTower) checkImages(b ImageBatch) error {
	if err := b.check(); err != nil {
		return err
	}
	if m := t.m; b.C != m.c || b.H != m.h || b.W != m.w {
		return fmt.Errorf("%s: images are %dx%dx%d, the model takes %dx%dx%d", t.s.Path(), b.C, b.H, b.W, m.c, m.h, m.w)
	}
	return nil
}

// run binds in (which it closes) and the first rows of the output buffer,
// runs the tower and returns the rows made unit as runTower does.
func (t *BoundTower) run(ctx context.Context, in *BoundTensor, rows int) (_ [][]float32, err error) {
	dim := t.m.dim
	defer func() { err = errors.Join(err, in.Close()) }()
	buf := t.out[:rows*dim]
	out, err := t.s.HostTensor(buf, int64(rows), int64(dim))
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	defer t.b.Clear()
	if err := t.b.BindInput("pixel_values", in); err != nil {
		return nil, err
	}
	if err := t.b.BindOutput(t.m.imageOut, out); err != nil {
		return nil, err
	}
	if err := t.b.Run(ctx); err != nil {
		return nil, err
	}
	vecs := make([][]float32, rows)
	for r := range vecs {
		vecs[r] = unit32(buf[r*dim : (r+1)*dim])
	}
	return vecs, nil
}

// Close releases the binding and the session.
func (t *BoundTower) Close() error {
	if t.s == nil {
		return nil
	}
	err := errors.Join(t.b.Close(), t.s.Close())
	t.s, t.b = nil, nil
	return err
}
