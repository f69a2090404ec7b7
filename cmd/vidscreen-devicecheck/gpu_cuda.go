//go:build cuda

package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// openGPU opens cuda:0 as c says. VIDSCREEN_CUBLAS_LIB names a cuBLAS to
// try first (the GPU machine's is in its Python environment, off the
// loader's path).
func openGPU(c gpuConfig) (cuda.Device, string, func(), error) {
	opt := cuda.OpenOptions{NoCUBLAS: c.noCUBLAS}
	if p := os.Getenv("VIDSCREEN_CUBLAS_LIB"); p != "" {
		opt.CUBLAS = append([]string{p}, cuda.DefaultCUBLAS...)
	}
	opt.Precision = c.prec
	g, err := cuda.Open(0, opt)
	if err != nil {
		return nil, "", nil, err
	}
	if !c.noCUBLAS && g.CUBLASMissing() != "" {
		return nil, "", nil, errors.Join(fmt.Errorf("no cuBLAS: %s", g.CUBLASMissing()), g.Close())
	}
	return g, g.Name(), func() { _ = g.Close() }, nil
}

// The GPU holds NV12 pictures for the prep_nv12 check.
var _ nv12Device = (*cuda.GPU)(nil)
