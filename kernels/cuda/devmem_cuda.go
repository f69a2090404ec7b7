//go:build cuda

package cuda

import (
	"fmt"

	"gorgonia.org/cu"
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

// memAlloc is cuMemAlloc with the size in its error; the caller has bound
// the device's context.
func memAlloc(bytes int64) (cu.DevicePtr, error) {
	ptr, err := cu.MemAlloc(bytes)
	if err != nil {
		return 0, fmt.Errorf("cuMemAlloc %d bytes: %w", bytes, err)
	}
	return ptr, nil
}

// A devBuf is a worker's device buffer: where its pointer is kept and
// its size in bytes.
type devBuf struct {
	p     *cu.DevicePtr
	bytes int64
}

// allocBufs allocates each buffer in turn and stops at the first that
// fails: those before it stay allocated, for the owner's free to release
// with the rest of what it holds.
func allocBufs(bufs ...devBuf) error {
	for _, b := range bufs {
		p, err := memAlloc(b.bytes)
		if err != nil {
			return err
		}
		*b.p = p
	}
	return nil
}

// freeBufs frees each allocated buffer and zeroes its pointer, so that a
// second free does nothing, and returns the driver's errors: one failure
// does not keep the other buffers.
func freeBufs(ptrs ...*cu.DevicePtr) []error {
	var errs []error
	for _, p := range ptrs {
		if *p != 0 {
			if err := cu.MemFree(*p); err != nil {
				errs = append(errs, err)
			}
			*p = 0
		}
	}
	return errs
}
