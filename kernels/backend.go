package kernels

import (
	"context"

	"github.com/vidscreen/vidscreen/kernels/blas"
)

// Each operation a GPU can speed up has an interface here, so a CUDA
// backend drops in beside CPU; CPU is always present and is the reference
// the tests hold every other backend to.

// A Joiner finds all pairs of rows at or above a similarity threshold.
type Joiner interface {
	ThresholdJoin(ctx context.Context, a, b *Matrix, tau float32, opt Options, emit func([]Pair) error) error
}

// A NeighbourSearcher finds the k most similar rows.
type NeighbourSearcher interface {
	TopK(ctx context.Context, q, x *Matrix, k int, opt Options) (*Neighbours, error)
	TopKEarlier(ctx context.Context, x *Matrix, k int, opt Options) (*Neighbours, error)
}

// CPU is the host backend: BLAS products over tiles, one tile per
// goroutine. The zero value uses kernels/blas (OpenBLAS when built with
// cgo).
type CPU struct {
	// Gemm overrides the float32 product, e.g. with gonum's pure-Go
	// implementation; nil means kernels/blas.
	Gemm blas.Gemm32
}

var (
	_ Joiner            = CPU{}
	_ NeighbourSearcher = CPU{}
)

func (c CPU) gemm32() blas.Gemm32 {
	if c.Gemm != nil {
		return c.Gemm
	}
	return blas.Implementation{}
}
