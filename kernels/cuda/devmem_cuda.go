//go:build cuda

package cuda

import (
	"gorgonia.org/cu"

	"github.com/vidscreen/vidscreen/gpu/cudactx"
)

// deviceMatrix is a rows x cols float32 matrix in one cuMemAlloc of a
// GPU's memory. A Resident and a Panel are each one, kept as two types
// (gpuResident, gpuPanel) so that a method's type assertion takes only
// the kind it was given.
type deviceMatrix struct {
	g          *GPU
	ptr        cu.DevicePtr
	rows, cols int
}

func (m *deviceMatrix) Rows() int { return m.rows }
func (m *deviceMatrix) Cols() int { return m.cols }

// Free releases the memory; a second call does nothing.
func (m *deviceMatrix) Free() error {
	if m.ptr == 0 {
		return nil
	}
	unbind, err := m.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = cu.MemFree(m.ptr)
	m.ptr = 0
	return err
}

// The device memory helpers of gpu/cudactx, under the names this
// package's workers use; the caller has bound the device's context.
var (
	memAlloc  = cudactx.MemAlloc
	allocBufs = cudactx.AllocBufs
	freeBufs  = cudactx.FreeBufs
)

// A devBuf is a worker's device buffer: where its pointer is kept and
// its size in bytes.
type devBuf = cudactx.DevBuf
