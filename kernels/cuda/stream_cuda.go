//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// openStream makes a worker's non-blocking stream and, where cuBLAS is
// loaded, a handle on it in math mode. Each is kept in *stream and
// *handle as soon as it exists, so that on an error the worker's free
// releases what was made; the caller has bound the device's context.
func (g *GPU) openStream(stream *cu.Stream, handle *uintptr, mode int32) error {
	var err error
	if *stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	if g.blas == nil {
		return nil
	}
	if err := g.blas.check("cublasCreate", g.blas.create(handle)); err != nil {
		*handle = 0
		return err
	}
	if err := g.blas.check("cublasSetStream", g.blas.setStream(*handle, uintptr(unsafe.Pointer(stream.C())))); err != nil {
		return err
	}
	return g.blas.check("cublasSetMathMode", g.blas.setMathMode(*handle, mode))
}

// closeStream undoes openStream: it destroys the cuBLAS handle, then the
// stream, clearing each, and returns what failed; the caller has bound
// the device's context.
func (g *GPU) closeStream(stream *cu.Stream, handle *uintptr) error {
	var errs []error
	if *handle != 0 {
		if err := g.blas.check("cublasDestroy", g.blas.destroy(*handle)); err != nil {
			errs = append(errs, err)
		}
		*handle = 0
	}
	if *stream != (cu.Stream{}) {
		if err := stream.Destroy(); err != nil {
			errs = append(errs, err)
		}
		*stream = cu.Stream{}
	}
	return errors.Join(errs...)
}
