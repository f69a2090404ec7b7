package cuda

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/vidscreen/vidscreen/internal/ordered"
	"github.com/vidscreen/vidscreen/kernels"
)

// JointKernel is the weighted joint kernel of kernels.NewJointKernel,
// diag(s) ((V V^T) o (T T^T)) diag(s), as a kernels.SymOperator whose
// products run on a GramDevice: V and T are uploaded once; as many row
// panels of K (GramTile rows by n columns, float32) as fit in the
// device's memory are formed once and kept; the other rows' tiles are
// formed again for every product. Each row panel of a product is one
// task that adds its tiles' float32 products into float64 in increasing
// column order, so the result does not depend on the worker count or on
// how much of K is resident. At n = 60,000 all of K (14.4 GB) fits on an
// H200; at pool sizes beyond 190,000 it no longer does and the products
// form the missing panels on the fly.
//
// Close frees the device memory.
type JointKernel struct {
	dev     GramDevice
	v, t    *kernels.Matrix
	rv, rt  Resident
	s       []float64
	edge    int
	panels  []Panel // per row panel; nil where formed on the fly
	workers int
	maxCols int
	// hostBasis and log: JointKernelOptions.HostBasis and Log.
	hostBasis bool
	log       io.Writer
	// idle holds the workers between products: each has a stream and
	// 128 MiB of tiles on a GPU, which a product would otherwise allocate
	// and free again (cuMemFree waits for the device).
	mu   sync.Mutex
	idle []GramWorker
}

// A pooled worker is one taken from the pool for a product; bad marks
// one whose job failed, whose accumulator may hold a partial sum, so that
// it is closed instead of returned.
type pooled struct {
	GramWorker
	bad bool
}

var _ kernels.SymOperator = (*JointKernel)(nil)

// JointKernelOptions adjust NewJointKernel. The zero value keeps as much
// of K resident as the device has memory for, with two workers.
type JointKernelOptions struct {
	// Workers is the number of device workers (streams); 0 means 2.
	Workers int
	// KernelBytes bounds the memory K's resident panels take: 0 means
	// what the device has free, < 0 none (every product forms K again).
	KernelBytes int64
	// MaxCols is the widest block of vectors Apply takes; 0 means 64
	// (the estimator's blocks are its 32 probes).
	MaxCols int
	// HostBasis keeps the estimate's block Lanczos basis on the host
	// instead of offering the device's (NewKrylovBasis).
	HostBasis bool
	// Log receives the one line saying why a basis stays on the host
	// when the device has not the memory for it; nil: no line.
	Log io.Writer
}

// NewJointKernel uploads v and t (t nil: K = V V^T) to dev, forms the
// panels of K that fit, and returns the operator; w are the items'
// weights (nil: uniform, the matrix is then K/n). On error nothing stays
// allocated on the device.
func NewJointKernel(ctx context.Context, dev GramDevice, v, t *kernels.Matrix, w []float64, opt JointKernelOptions) (_ *JointKernel, err error) {
	n := v.Rows
	if t != nil && t.Rows != n {
		return nil, fmt.Errorf("joint kernel: %d video rows but %d text rows", n, t.Rows)
	}
	if n == 0 || v.Cols == 0 || (t != nil && t.Cols == 0) {
		return nil, fmt.Errorf("joint kernel: %d x %d items: nothing for a device to form", n, v.Cols)
	}
	s, err := kernels.ItemWeights(w, n)
	if err != nil {
		return nil, fmt.Errorf("joint kernel: %w", err)
	}
	k := &JointKernel{dev: dev, v: v, t: t, s: s, edge: dev.GramTile(), workers: opt.Workers, hostBasis: opt.HostBasis, log: opt.Log}
	if k.workers <= 0 {
		k.workers = 2
	}
	k.maxCols = opt.MaxCols
	if k.maxCols <= 0 {
		k.maxCols = 64
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, k.Close())
		}
	}()
	if k.rv, err = dev.Upload(v); err != nil {
		return nil, fmt.Errorf("%s: upload %d x %d: %w", dev.Name(), v.Rows, v.Cols, err)
	}
	if t != nil {
		if k.rt, err = dev.Upload(t); err != nil {
			return nil, fmt.Errorf("%s: upload %d x %d: %w", dev.Name(), t.Rows, t.Cols, err)
		}
	}
	nb := (n + k.edge - 1) / k.edge
	k.panels = make([]Panel, nb)
	budget := opt.KernelBytes
	if budget == 0 {
		if budget, err = dev.KernelMemory(n, k.workers, k.maxCols); err != nil {
			return nil, fmt.Errorf("%s: free memory: %w", dev.Name(), err)
		}
	}
	var resident []int
	for bi := 0; bi < nb; bi++ {
		rows := min(k.edge, n-bi*k.edge)
		bytes := int64(rows) * int64(n) * 4
		if budget < bytes {
			break
		}
		p, perr := dev.AllocPanel(rows, n)
		if perr != nil {
			// Less memory than the device said (another process took
			// some): the remaining panels are formed per product.
			break
		}
		k.panels[bi] = p
		budget -= bytes
		resident = append(resident, bi)
	}
	form := func(w *pooled, i int) (struct{}, error) {
		bi := resident[i]
		r0 := bi * k.edge
		p := k.panels[bi]
		for c0 := 0; c0 < n; c0 += k.edge {
			if err := ctx.Err(); err != nil {
				return struct{}{}, err
			}
			if err := w.Gram(k.rv, k.rt, r0, p.Rows(), c0, min(k.edge, n-c0), p, c0); err != nil {
				w.bad = true
				return struct{}{}, fmt.Errorf("%s: form kernel rows %d..: %w", dev.Name(), r0, err)
			}
		}
		return struct{}{}, nil
	}
	if err = k.run(ctx, len(resident), 0, form, nil); err != nil {
		return nil, err
	}
	return k, nil
}

// Size implements kernels.SymOperator.
func (k *JointKernel) Size() int { return k.v.Rows }

// Resident says how many of K's n rows are held on the device.
func (k *JointKernel) Resident() int {
	var r int
	for _, p := range k.panels {
		if p != nil {
			r += p.Rows()
		}
	}
	return r
}

// Trace returns tr(A) = sum_i s_i^2 |v_i|^2 |t_i|^2 in float64 on the
// host, exactly as the CPU operator's, which the estimator uses as a
// control variate.
func (k *JointKernel) Trace() float64 {
	var tr float64
	for i := 0; i < k.v.Rows; i++ {
		d := kernels.Dot64(k.v.Row(i), k.v.Row(i))
		if k.t != nil {
			d *= kernels.Dot64(k.t.Row(i), k.t.Row(i))
		}
		tr += k.s[i] * k.s[i] * d
	}
	return tr
}

// Apply implements kernels.SymOperator: y = A x for x and y n x cols.
func (k *JointKernel) Apply(ctx context.Context, x []float64, cols int, y []float64) error {
	n := k.v.Rows
	if cols <= 0 || cols > k.maxCols || len(x) != n*cols || len(y) != n*cols {
		return fmt.Errorf("joint kernel: apply to %d and %d values with %d columns, want %d rows and 1..%d columns", len(x), len(y), cols, n, k.maxCols)
	}
	xs := make([]float32, n*cols)
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			xs[i*cols+c] = float32(x[i*cols+c] * k.s[i])
		}
	}
	job := func(w *pooled, bi int) (_ struct{}, err error) {
		defer func() {
			if err != nil {
				w.bad = true
			}
		}()
		r0 := bi * k.edge
		rows := min(k.edge, n-r0)
		p := k.panels[bi]
		for c0 := 0; c0 < n; c0 += k.edge {
			if err := ctx.Err(); err != nil {
				return struct{}{}, err
			}
			wd := min(k.edge, n-c0)
			src, at := p, c0
			if src == nil {
				src, at = w.Scratch(), 0
				if err := w.Gram(k.rv, k.rt, r0, rows, c0, wd, src, 0); err != nil {
					return struct{}{}, fmt.Errorf("%s: kernel tile (%d, %d): %w", k.dev.Name(), r0, c0, err)
				}
			}
			if err := w.MulAdd(src, rows, at, wd, c0); err != nil {
				return struct{}{}, fmt.Errorf("%s: product of kernel tile (%d, %d): %w", k.dev.Name(), r0, c0, err)
			}
		}
		yi := y[r0*cols : (r0+rows)*cols]
		if err := w.Take(yi, rows); err != nil {
			return struct{}{}, fmt.Errorf("%s: %w", k.dev.Name(), err)
		}
		for i := 0; i < rows; i++ {
			for c := 0; c < cols; c++ {
				yi[i*cols+c] *= k.s[r0+i]
			}
		}
		return struct{}{}, nil
	}
	return k.run(ctx, len(k.panels), cols, job, xs)
}

// run runs job over n tasks on the operator's workers, taken from the
// pool (or opened) and given the block x of cols columns first (none when
// x is nil); a worker whose job failed is closed, the others go back.
func (k *JointKernel) run(ctx context.Context, n, cols int, job func(*pooled, int) (struct{}, error), x []float32) error {
	open := func() (*pooled, error) {
		w, err := k.take()
		if err != nil {
			return nil, err
		}
		p := &pooled{GramWorker: w}
		if x != nil {
			if err := w.SetBlock(x, cols); err != nil {
				return nil, errors.Join(fmt.Errorf("%s: copy block: %w", k.dev.Name(), err), k.discard(w))
			}
		}
		return p, nil
	}
	shut := func(p *pooled) error {
		if p.bad {
			return k.discard(p.GramWorker)
		}
		k.mu.Lock()
		k.idle = append(k.idle, p.GramWorker)
		k.mu.Unlock()
		return nil
	}
	return ordered.Run(ctx, n, min(k.workers, max(n, 1)), 2*k.workers, open, shut, job, func(int, struct{}) error { return nil })
}

// take returns an idle worker or opens one.
func (k *JointKernel) take() (GramWorker, error) {
	k.mu.Lock()
	if m := len(k.idle); m > 0 {
		w := k.idle[m-1]
		k.idle = k.idle[:m-1]
		k.mu.Unlock()
		return w, nil
	}
	k.mu.Unlock()
	w, err := k.dev.NewGramWorker(k.v.Rows, k.maxCols)
	if err != nil {
		return nil, fmt.Errorf("%s: open worker: %w", k.dev.Name(), err)
	}
	return w, nil
}

func (k *JointKernel) discard(w GramWorker) error {
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: close worker: %w", k.dev.Name(), err)
	}
	return nil
}

// Close frees V, T, the resident panels and the idle workers on the
// device.
func (k *JointKernel) Close() error {
	var errs []error
	k.mu.Lock()
	for _, w := range k.idle {
		errs = append(errs, k.discard(w))
	}
	k.idle = nil
	k.mu.Unlock()
	for i, p := range k.panels {
		if p != nil {
			errs = append(errs, p.Free())
			k.panels[i] = nil
		}
	}
	for _, r := range []*Resident{&k.rv, &k.rt} {
		if *r != nil {
			errs = append(errs, (*r).Free())
			*r = nil
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: free joint kernel: %w", k.dev.Name(), err)
	}
	return nil
}
