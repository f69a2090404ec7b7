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

// A VendiScorer computes exact Vendi scores of joint kernels (the GPU
// version would build the tiles and solve the eigenproblem on the device).
type VendiScorer interface {
	VendiJoint(ctx context.Context, v, t *Matrix, q float64, w []float64, opt Options) (Vendi, error)
}

// An OrderLearner runs the prequential logistic learner over many item
// orders at once (on a GPU, one order per stream).
type OrderLearner interface {
	PrequentialLogisticOrders(ctx context.Context, x *Matrix, y, nClasses []int32, maxClasses int, orders [][]int32, cfg SGDConfig, opt Options) ([]*Matrix, error)
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
	_ VendiScorer       = CPU{}
	_ OrderLearner      = CPU{}
)

// VendiJoint implements VendiScorer; see the package-level VendiJoint.
func (CPU) VendiJoint(ctx context.Context, v, t *Matrix, q float64, w []float64, opt Options) (Vendi, error) {
	return VendiJoint(ctx, v, t, q, w, opt)
}

// PrequentialLogisticOrders implements OrderLearner; see the package-level
// PrequentialLogisticOrders.
func (CPU) PrequentialLogisticOrders(ctx context.Context, x *Matrix, y, nClasses []int32, maxClasses int, orders [][]int32, cfg SGDConfig, opt Options) ([]*Matrix, error) {
	return PrequentialLogisticOrders(ctx, x, y, nClasses, maxClasses, orders, cfg, opt)
}

func (c CPU) gemm32() blas.Gemm32 {
	if c.Gemm != nil {
		return c.Gemm
	}
	return blas.Implementation{}
}
