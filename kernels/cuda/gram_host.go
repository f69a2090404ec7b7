package cuda

import (
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

var _ GramDevice = Host{}

// GramTile implements GramDevice: Host.Edge, or 1024 (the CPU operator's).
func (h Host) GramTile() int {
	if h.Edge > 0 {
		return h.Edge
	}
	return 1024
}

// KernelMemory implements GramDevice: Host.Memory, unbounded when 0.
func (h Host) KernelMemory(int, int, int) (int64, error) {
	if h.Memory > 0 {
		return h.Memory, nil
	}
	return math.MaxInt64, nil
}

type hostPanel struct {
	rows, cols int
	data       []float32
}

func (p *hostPanel) Rows() int   { return p.rows }
func (p *hostPanel) Cols() int   { return p.cols }
func (p *hostPanel) Free() error { p.data = nil; return nil }

// AllocPanel implements GramDevice.
func (Host) AllocPanel(rows, cols int) (Panel, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("host: panel %d x %d", rows, cols)
	}
	return &hostPanel{rows: rows, cols: cols, data: make([]float32, rows*cols)}, nil
}

// NewGramWorker implements GramDevice.
func (h Host) NewGramWorker(n, maxCols int) (GramWorker, error) {
	e := h.GramTile()
	g := h.Gemm
	if g == nil {
		g = blas.Implementation{}
	}
	return &hostGramWorker{gemm: g, n: n, maxCols: maxCols,
		scratch: &hostPanel{rows: e, cols: e, data: make([]float32, e*e)},
		tt:      make([]float32, e*e),
		tmp:     make([]float32, e*maxCols),
		acc:     make([]float64, e*maxCols)}, nil
}

type hostGramWorker struct {
	gemm       blas.Gemm32
	n, maxCols int
	x          []float32
	cols       int
	scratch    *hostPanel
	tt, tmp    []float32
	acc        []float64
}

func (w *hostGramWorker) SetBlock(x []float32, cols int) error {
	if cols <= 0 || cols > w.maxCols || len(x) != w.n*cols {
		return fmt.Errorf("host: block of %d values with %d columns, want %d x 1..%d", len(x), cols, w.n, w.maxCols)
	}
	w.x, w.cols = x, cols
	return nil
}

func (w *hostGramWorker) Scratch() Panel { return w.scratch }

func (w *hostGramWorker) Gram(v, t Resident, r0, rows, c0, cols int, dst Panel, at int) error {
	p := dst.(*hostPanel)
	if rows <= 0 || rows > p.rows || cols <= 0 || at < 0 || at+cols > p.cols || cols > len(w.tt)/max(rows, 1) {
		return fmt.Errorf("host: gram tile %d x %d at column %d of a %d x %d panel", rows, cols, at, p.rows, p.cols)
	}
	vm := v.(hostResident).m
	d := vm.Cols
	out := p.data[at:]
	w.gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, cols, d, 1, vm.Data[r0*d:(r0+rows)*d], max(d, 1), vm.Data[c0*d:(c0+cols)*d], max(d, 1), 0, out, p.cols)
	if t == nil {
		return nil
	}
	tm := t.(hostResident).m
	dt := tm.Cols
	w.gemm.Sgemm(gblas.NoTrans, gblas.Trans, rows, cols, dt, 1, tm.Data[r0*dt:(r0+rows)*dt], max(dt, 1), tm.Data[c0*dt:(c0+cols)*dt], max(dt, 1), 0, w.tt, cols)
	for i := 0; i < rows; i++ {
		o := out[i*p.cols : i*p.cols+cols]
		for j, x := range w.tt[i*cols : (i+1)*cols] {
			o[j] *= x
		}
	}
	return nil
}

func (w *hostGramWorker) MulAdd(src Panel, rows, at, wd, x0 int) error {
	p := src.(*hostPanel)
	if w.x == nil {
		return fmt.Errorf("host: MulAdd before SetBlock")
	}
	if rows <= 0 || rows > p.rows || rows*w.cols > len(w.acc) || at < 0 || wd <= 0 || at+wd > p.cols || x0 < 0 || x0+wd > w.n {
		return fmt.Errorf("host: product of %d x %d at column %d of a %d x %d panel with rows %d.. of the block", rows, wd, at, p.rows, p.cols, x0)
	}
	c := w.cols
	w.gemm.Sgemm(gblas.NoTrans, gblas.NoTrans, rows, c, wd, 1, p.data[at:], p.cols, w.x[x0*c:(x0+wd)*c], c, 0, w.tmp, c)
	for e, v := range w.tmp[:rows*c] {
		w.acc[e] += float64(v)
	}
	return nil
}

func (w *hostGramWorker) Take(y []float64, rows int) error {
	n := rows * w.cols
	if len(y) != n || n > len(w.acc) {
		return fmt.Errorf("host: take %d values of %d rows x %d columns", len(y), rows, w.cols)
	}
	copy(y, w.acc[:n])
	clear(w.acc[:n])
	return nil
}

func (w *hostGramWorker) Close() error { w.x, w.tt, w.tmp, w.acc = nil, nil, nil, nil; return nil }
