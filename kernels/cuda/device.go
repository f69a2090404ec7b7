package cuda

import (
	"math"

	"github.com/vidscreen/vidscreen/kernels"
)

// A Device is what Backend needs from an accelerator: matrices held in its
// memory, and workers (one stream each on a GPU) that compute one product
// tile at a time and hand back only the entries that matter. The GPU
// implements it in device_cuda.go (build tag cuda); Host implements it on
// the CPU, so the tiling, pair assembly and re-check of Backend are tested
// on any machine.
type Device interface {
	// Name describes the device for messages: "cuda:0 NVIDIA H200 (cuBLAS 13)".
	Name() string
	// Precision is the arithmetic of the device's tile products; it sets
	// the band that Backend re-checks in float64.
	Precision() Precision
	// TileShape is the largest tile a worker computes at once.
	TileShape() (rows, cols int)
	// Upload copies m into device memory.
	Upload(m *kernels.Matrix) (Resident, error)
	// NewWorker opens a worker with scratch for one tile of TileShape.
	NewWorker() (Worker, error)
}

// A Resident is a matrix held in a device's memory.
type Resident interface {
	Rows() int
	Cols() int
	// Free releases the device memory; the Resident is unusable after.
	Free() error
}

// A Tile names a block of the product a[R0:R0+Rows] . b[C0:C0+Cols]^T.
type Tile struct {
	A, B     Resident
	R0, Rows int
	C0, Cols int
	Mask     Mask
}

// A Mask says which entries of a tile count, by global row i and column j.
type Mask int

const (
	All   Mask = iota // every entry
	Upper             // j > i: a self-join, each unordered pair once
	Lower             // j < i: prequential top-k, earlier rows only
)

// keep reports whether entry (i, j) counts under m.
func (m Mask) keep(i, j int) bool {
	switch m {
	case Upper:
		return j > i
	case Lower:
		return j < i
	}
	return true
}

// A Candidate is one entry of a tile a worker kept: tile-local Row and Col
// and the product as the device computed it.
type Candidate struct {
	Row, Col int32
	Value    float32
}

// A Worker computes tiles one at a time; it is used by one goroutine.
type Worker interface {
	// Product computes the tile t and keeps it for the calls that follow.
	Product(t Tile) error
	// RowKth returns, for each row of the last tile, its k-th largest
	// entry under the tile's mask; -Inf where the row has fewer than k.
	RowKth(k int) ([]float32, error)
	// Extract appends to dst every entry of the last tile, under its mask,
	// at or above its row's floor (floors has one value per tile row).
	Extract(floors []float32, dst []Candidate) ([]Candidate, error)
	// Close frees the worker's scratch.
	Close() error
}

// Precision is the arithmetic of a device's tile products.
type Precision int

const (
	// FP32: float32 inputs, float32 accumulation in any order, as cuBLAS's
	// default math mode and the project's own GEMM kernel compute.
	FP32 Precision = iota
	// TF32: inputs rounded to TensorFloat-32 (10 mantissa bits) on tensor
	// cores, float32 accumulation.
	TF32
)

func (p Precision) String() string {
	if p == TF32 {
		return "tf32"
	}
	return "fp32"
}

// Bound is the worst-case error of one tile entry of length-d rows,
// relative to ||a_i||*||b_j||. FP32 is gamma_d (kernels.RoundingBound).
// TF32 adds the rounding of both inputs: each loses at most 2^-10 of
// itself (truncation, the worst a conversion can do; round to nearest
// loses half that), so a product is off by at most (2^-9 + 2^-20) of
// |a_k||b_k|, and the float32 sum of the rounded products adds gamma_d of
// their norms, which are at most (1+2^-10)^2 larger.
func (p Precision) Bound(d int) float64 {
	g := kernels.RoundingBound(d)
	if p != TF32 {
		return g
	}
	in := math.Ldexp(1, -10)
	return 2*in + in*in + g*(1+in)*(1+in)
}
