package cuda

import (
	"fmt"
	"math"
	"slices"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/blas"
)

// Host is a Device on the CPU: tiles come from kernels/blas's Sgemm and
// the row selections from plain loops, with the same contract as the GPU's
// kernels. It is the reference the GPU's workers are held to, and what
// lets Backend's tiling and re-check run in tests on any machine.
type Host struct {
	// Rows and Cols are the tile shape; 0 means 256 x 2048, the CPU
	// join's.
	Rows, Cols int
	// Gemm overrides the product; nil means kernels/blas.
	Gemm blas.Gemm32
	// Edge is the kernel tile edge of GramTile; 0 means 1024.
	Edge int
	// Memory bounds KernelMemory, in bytes; 0 means no bound.
	Memory int64
	// BasisBytes bounds BasisMemory, in bytes; 0 means no bound, < 0
	// none (a device with no room for the block Lanczos basis).
	BasisBytes int64
	// Prec TF32 or BF16 computes the tile products as gemm_tf32_nt or
	// gemm_bf16_nt does (mma_host.go: inputs rounded as cvt.rna.tf32 or
	// cvt.rn.bf16x2 round them, float32 accumulation per mma), in place of
	// Gemm, so the re-check bands are tested here; Gram tiles stay float32,
	// as on the GPU.
	Prec Precision
}

var _ Device = Host{}

// Name implements Device.
func (Host) Name() string { return "host" }

// Precision implements Device: Sgemm's float32, or the mma kernels' (Prec).
func (h Host) Precision() Precision { return h.Prec }

// TileShape implements Device.
func (h Host) TileShape() (rows, cols int) {
	rows, cols = h.Rows, h.Cols
	if rows <= 0 {
		rows = 256
	}
	if cols <= 0 {
		cols = 2048
	}
	return rows, cols
}

type hostResident struct{ m *kernels.Matrix }

func (r hostResident) Rows() int   { return r.m.Rows }
func (r hostResident) Cols() int   { return r.m.Cols }
func (r hostResident) Free() error { return nil }

// Upload implements Device; the matrix is shared, not copied.
func (Host) Upload(m *kernels.Matrix) (Resident, error) { return hostResident{m}, nil }

// NewWorker implements Device.
func (h Host) NewWorker() (Worker, error) {
	rows, cols := h.TileShape()
	g := h.Gemm
	if g == nil {
		g = blas.Implementation{}
	}
	return &hostWorker{gemm: g, tile: make([]float32, rows*cols), maxRows: rows, maxCols: cols, prec: h.Prec}, nil
}

type hostWorker struct {
	gemm             blas.Gemm32
	tile             []float32
	maxRows, maxCols int
	t                Tile
	ok               bool
	prec             Precision
}

func (w *hostWorker) Product(t Tile) error {
	if t.Rows > w.maxRows || t.Cols > w.maxCols || t.Rows <= 0 || t.Cols <= 0 {
		return fmt.Errorf("host: tile %d x %d outside 1..%d x 1..%d", t.Rows, t.Cols, w.maxRows, w.maxCols)
	}
	a, b := t.A.(hostResident).m, t.B.(hostResident).m
	d := a.Cols
	ad, bd := a.Data[t.R0*d:(t.R0+t.Rows)*d], b.Data[t.C0*d:(t.C0+t.Cols)*d]
	if w.prec == FP32 {
		w.gemm.Sgemm(gblas.NoTrans, gblas.Trans, t.Rows, t.Cols, d, 1, ad, d, bd, d, 0, w.tile, t.Cols)
	} else {
		mmaGEMM(w.prec == BF16, ad, bd, t.Rows, t.Cols, d, w.tile, t.Cols)
	}
	w.t, w.ok = t, true
	return nil
}

func (w *hostWorker) RowKth(k int) ([]float32, error) {
	if !w.ok {
		return nil, fmt.Errorf("host: RowKth before Product")
	}
	t := w.t
	out := make([]float32, t.Rows)
	var vals []float32
	for i := range out {
		vals = vals[:0]
		for j, v := range w.tile[i*t.Cols : (i+1)*t.Cols] {
			if t.Mask.keep(t.R0+i, t.C0+j) && !math.IsNaN(float64(v)) {
				vals = append(vals, v)
			}
		}
		out[i] = float32(math.Inf(-1))
		if k > 0 && len(vals) >= k {
			slices.Sort(vals)
			out[i] = vals[len(vals)-k]
		}
	}
	return out, nil
}

func (w *hostWorker) Extract(floors []float32, dst []Candidate) ([]Candidate, error) {
	if !w.ok {
		return nil, fmt.Errorf("host: Extract before Product")
	}
	t := w.t
	if len(floors) != t.Rows {
		return nil, fmt.Errorf("host: %d floors for %d tile rows", len(floors), t.Rows)
	}
	for i := 0; i < t.Rows; i++ {
		f := floors[i]
		for j, v := range w.tile[i*t.Cols : (i+1)*t.Cols] {
			if v >= f && t.Mask.keep(t.R0+i, t.C0+j) {
				dst = append(dst, Candidate{Row: int32(i), Col: int32(j), Value: v})
			}
		}
	}
	return dst, nil
}

func (w *hostWorker) Close() error { w.tile = nil; return nil }

// tf32Round rounds x to TensorFloat-32 (8 exponent bits, 10 mantissa
// bits) to nearest, ties away from zero, as the tensor cores' input
// conversion does; the result is a float32 whose low 13 mantissa bits are
// zero. NaN and infinities pass unchanged; a value that rounds past the
// largest finite one becomes infinite, as in hardware.
func tf32Round(x float32) float32 {
	u := math.Float32bits(x)
	if u&0x7f800000 == 0x7f800000 {
		return x
	}
	u += 1 << 12 // half of the 13 dropped bits: ties go away from zero
	return math.Float32frombits(u &^ (1<<13 - 1))
}
