//go:build cuda

package cudactx

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// MemAlloc is cuMemAlloc with the size in its error; the caller has bound
// the context.
func MemAlloc(bytes int64) (cu.DevicePtr, error) {
	ptr, err := cu.MemAlloc(bytes)
	if err != nil {
		return 0, fmt.Errorf("cuMemAlloc %d bytes: %w", bytes, err)
	}
	return ptr, nil
}

// A DevBuf is one of an owner's device buffers: where its pointer is kept
// and its size in bytes.
type DevBuf struct {
	P     *cu.DevicePtr
	Bytes int64
}

// AllocBufs allocates each buffer in turn and stops at the first that
// fails: those before it stay allocated, for the owner's free to release
// with the rest of what it holds.
func AllocBufs(bufs ...DevBuf) error {
	for _, b := range bufs {
		p, err := MemAlloc(b.Bytes)
		if err != nil {
			return err
		}
		*b.P = p
	}
	return nil
}

// FreeBufs frees each allocated buffer and zeroes its pointer, so that a
// second free does nothing, and returns the driver's errors: one failure
// does not keep the other buffers.
func FreeBufs(ptrs ...*cu.DevicePtr) []error {
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

// UploadBytes copies b into a new cuMemAlloc buffer in the context and
// returns its device address and the function that frees it: for NV12
// pictures put where NVDEC would leave them, by the device check, which
// has no decoder on the GPU machine. The copy is synchronous; free may be
// called more than once.
func (c *Context) UploadBytes(b []byte) (_ uintptr, free func() error, err error) {
	if len(b) == 0 {
		return 0, nil, fmt.Errorf("cuda:%d: upload of 0 bytes", c.ordinal)
	}
	unbind, err := c.Bind()
	if err != nil {
		return 0, nil, err
	}
	defer unbind()
	ptr, err := MemAlloc(int64(len(b)))
	if err != nil {
		return 0, nil, fmt.Errorf("cuda:%d: %w", c.ordinal, err)
	}
	freed := false
	free = func() error { // once: a second call does nothing
		if freed {
			return nil
		}
		freed = true
		unbind, err := c.Bind()
		if err != nil {
			return err
		}
		defer unbind()
		if err := cu.MemFree(ptr); err != nil {
			return fmt.Errorf("cuda:%d: free %d bytes: %w", c.ordinal, len(b), err)
		}
		return nil
	}
	if err := cu.MemcpyHtoD(ptr, unsafe.Pointer(&b[0]), int64(len(b))); err != nil {
		return 0, nil, errors.Join(fmt.Errorf("cuda:%d: copy %d bytes: %w", c.ordinal, len(b), err), free())
	}
	return uintptr(ptr), free, nil
}
