package cuda

import (
	"context"
	"errors"
	"fmt"

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
	k := &JointKernel{dev: dev, v: v, t: t, s: s, edge: dev.GramTile(), workers: opt.Workers}
	if k.workers <= 0 {
		k.workers = 2
	}
	maxCols := opt.MaxCols
	if maxCols <= 0 {
		maxCols = 64
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
		if budget, err = dev.KernelMemory(n, k.workers, maxCols); err != nil {
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
	form := func(w GramWorker, i int) (struct{}, error) {
		bi := resident[i]
		r0 := bi * k.edge
		p := k.panels[bi]
		for c0 := 0; c0 < n; c0 += k.edge {
			if err := ctx.Err(); err != nil {
				return struct{}{}, err
			}
			if err := w.Gram(k.rv, k.rt, r0, p.Rows(), c0, min(k.edge, n-c0), p, c0); err != nil {
				return struct{}{}, fmt.Errorf("%s: form kernel rows %d..: %w", dev.Name(), r0, err)
			}
		}
		return struct{}{}, nil
	}
	if err = k.run(ctx, len(resident), 1, form, func(int, struct{}) error { return nil }); err != nil {
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
	if cols <= 0 || len(x) != n*cols || len(y) != n*cols {
		return fmt.Errorf("joint kernel: apply to %d and %d values with %d columns, want %d rows", len(x), len(y), cols, n)
	}
	xs := make([]float32, n*cols)
	for i := 0; i < n; i++ {
		for c := 0; c < cols; c++ {
			xs[i*cols+c] = float32(x[i*cols+c] * k.s[i])
		}
	}
	job := func(w GramWorker, bi int) (struct{}, error) {
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
	return k.run(ctx, len(k.panels), cols, job, func(int, struct{}) error { return nil }, xs)
}

// run runs job over n tasks on the operator's workers, each opened for
// blocks of cols columns and given the block x (when not nil) first.
func (k *JointKernel) run(ctx context.Context, n, cols int, job func(GramWorker, int) (struct{}, error), sink func(int, struct{}) error, x ...[]float32) error {
	open := func() (GramWorker, error) {
		w, err := k.dev.NewGramWorker(k.v.Rows, cols)
		if err != nil {
			return nil, fmt.Errorf("%s: open worker: %w", k.dev.Name(), err)
		}
		if len(x) > 0 {
			if err := w.SetBlock(x[0], cols); err != nil {
				return nil, errors.Join(fmt.Errorf("%s: copy block: %w", k.dev.Name(), err), w.Close())
			}
		}
		return w, nil
	}
	shut := func(w GramWorker) error {
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: close worker: %w", k.dev.Name(), err)
		}
		return nil
	}
	return ordered.Run(ctx, n, min(k.workers, max(n, 1)), 2*k.workers, open, shut, job, sink)
}

// Close frees V, T and the resident panels on the device.
func (k *JointKernel) Close() error {
	var errs []error
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
