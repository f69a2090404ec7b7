//go:build !cuda

package place

import (
	"errors"

	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// openDevice: this build has no GPU kernels (it links no CUDA library so
// that it starts on any machine).
func openDevice(int, cuda.Precision, func(string) string) (cuda.GramDevice, func(), error) {
	return nil, nil, errors.New("this binary has no GPU kernels (build bin/vidscreen-cuda with make build-cuda)")
}
