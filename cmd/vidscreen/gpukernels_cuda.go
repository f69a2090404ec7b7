//go:build cuda

package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// openGPUKernels opens CUDA device ordinal for the kernels. cuBLAS is
// looked for under its sonames, after the library VIDSCREEN_CUBLAS_LIB
// names (a pip wheel's libcublas.so.13, say); VIDSCREEN_CUDA_PRECISION=tf32
// asks for TF32 products (the results are the same: the re-check band
// widens to cover them).
func openGPUKernels(ordinal int, getenv func(string) string) (kernels.Joiner, func(), string, error) {
	opt := cuda.OpenOptions{}
	if p := getenv("VIDSCREEN_CUBLAS_LIB"); p != "" {
		opt.CUBLAS = append([]string{filepath.Clean(p)}, cuda.DefaultCUBLAS...)
	}
	switch p := strings.ToLower(getenv("VIDSCREEN_CUDA_PRECISION")); p {
	case "", "fp32":
	case "tf32":
		opt.Precision = cuda.TF32
	default:
		return nil, nil, "", fmt.Errorf("VIDSCREEN_CUDA_PRECISION=%s: want fp32 or tf32", p)
	}
	g, err := cuda.Open(ordinal, opt)
	if err != nil {
		return nil, nil, "", err
	}
	done := func() { _ = g.Close() }
	return &cuda.Backend{Device: g}, done, g.Name(), nil
}
