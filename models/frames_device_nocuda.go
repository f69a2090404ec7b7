//go:build !cuda

package models

import (
	"errors"

	"github.com/vidscreen/vidscreen/gpu"
)

// openDeviceFramePath: the preprocessing kernel is in the cuda build only.
func openDeviceFramePath(*Runtime, *ImageText, gpu.Device) (deviceFramePath, error) {
	return nil, errors.New("this binary was built without the GPU kernels (build bin/vidscreen-cuda with `make build-cuda`)")
}
