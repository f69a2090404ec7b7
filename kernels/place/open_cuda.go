//go:build cuda

package place

import (
	"path/filepath"

	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// openDevice opens CUDA device ordinal for the kernels. cuBLAS is looked
// for under its sonames, after the library VIDSCREEN_CUBLAS_LIB names (a
// pip wheel's libcublas.so.13, say); without one the tiles run on the
// binary's own kernels, in any precision.
func openDevice(ordinal int, prec cuda.Precision, getenv func(string) string) (cuda.GramDevice, func(), error) {
	opt := cuda.OpenOptions{Precision: prec}
	if p := getenv("VIDSCREEN_CUBLAS_LIB"); p != "" {
		opt.CUBLAS = append([]string{filepath.Clean(p)}, cuda.DefaultCUBLAS...)
	}
	g, err := cuda.Open(ordinal, opt)
	if err != nil {
		return nil, nil, err
	}
	return g, func() { _ = g.Close() }, nil
}
