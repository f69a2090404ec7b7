//go:build !cuda

package main

import (
	"errors"

	"github.com/vidscreen/vidscreen/kernels"
)

// openGPUKernels: this build has no GPU kernels (it links no CUDA library
// so that it starts on any machine).
func openGPUKernels(int, func(string) string) (kernels.Joiner, func(), string, error) {
	return nil, nil, "", errors.New("this binary has no GPU kernels (build bin/vidscreen-cuda with make build-cuda)")
}
