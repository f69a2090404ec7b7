//go:build !cuda

package main

import (
	"errors"

	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// openGPU: a build without the cuda tag has no GPU device.
func openGPU(gpuConfig) (cuda.Device, string, func(), error) {
	return nil, "", nil, errors.New("built without the cuda tag (scripts/device-bundle.sh builds the GPU binary)")
}

// sharePrimary: a build without the cuda tag has no primary context to
// ready.
func sharePrimary() error {
	return errors.New("built without the cuda tag (scripts/device-bundle.sh builds the GPU binary)")
}
