package cuda

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/kernels"
)

var _ kernels.BasisOperator = (*JointKernel)(nil)

// NewKrylovBasis implements kernels.BasisOperator: the estimate's basis in
// the device's memory when the device is a BasisDevice with the memory
// for it. Otherwise (no memory, or the allocation failed) it writes one
// line to JointKernelOptions.Log and returns nil, and the estimate keeps
// its basis on the host; with HostBasis set it returns nil silently.
func (k *JointKernel) NewKrylovBasis(ctx context.Context, cols, block int) (kernels.KrylovBasis, error) {
	bd, ok := k.dev.(BasisDevice)
	if k.hostBasis || !ok {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := k.v.Rows
	if err := checkBasisShape(n, cols, block); err != nil {
		return nil, fmt.Errorf("%s: %w", k.dev.Name(), err)
	}
	need := basisBytes(n, cols, block)
	free, err := bd.BasisMemory()
	if err != nil {
		k.note("%s: free memory for the block Lanczos basis: %v; the basis stays on the host", k.dev.Name(), err)
		return nil, nil
	}
	if free < need {
		k.note("%s: the block Lanczos basis (%d x %d float64, %d MiB) does not fit in the %d MiB free; it stays on the host", k.dev.Name(), n, cols, need>>20, free>>20)
		return nil, nil
	}
	buf, err := bd.NewBasisBuffers(n, cols, block, k.workers)
	if err != nil {
		k.note("%s: the block Lanczos basis (%d MiB): %v; it stays on the host", k.dev.Name(), need>>20, err)
		return nil, nil
	}
	return &deviceBasis{name: k.dev.Name(), buf: buf, n: n, ld: cols, block: block}, nil
}

// note writes one line to the operator's log, if it has one.
func (k *JointKernel) note(format string, args ...any) {
	if k.log != nil {
		fmt.Fprintf(k.log, format+"\n", args...)
	}
}

var _ kernels.KrylovBasis = (*deviceBasis)(nil)
