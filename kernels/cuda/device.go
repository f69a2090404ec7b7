package cuda

import "github.com/vidscreen/vidscreen/kernels"

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
