//go:build !cuda

package main

import (
	"errors"

	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// openGPUDevice: this build has no GPU kernels (it links no CUDA library
// so that it starts on any machine).
func openGPUDevice(int, cuda.Precision, func(string) string) (cuda.GramDevice, func(), error) {
	return nil, nil, errors.New("this binary has no GPU kernels (build bin/vidscreen-cuda with make build-cuda)")
}
