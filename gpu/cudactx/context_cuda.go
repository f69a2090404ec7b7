//go:build cuda

package cudactx

import (
	"fmt"
	"runtime"

	"gorgonia.org/cu"
)

// A Context is CUDA device ordinal's primary context, retained: the
// context ONNX Runtime's CUDA provider and FFmpeg's NVDEC use too, so
// device addresses pass between them. Its methods may be called from any
// goroutine; driver calls made with it go between Bind and the func Bind
// returns.
type Context struct {
	ordinal int
	name    string
	dev     cu.Device
	ctx     cu.CUContext
}

// Retain retains device ordinal's primary context. The error says what
// failed (cuInit at start, no such device, the context); callers fall back
// to the CPU.
func Retain(ordinal int) (*Context, error) {
	if err := InitError(); err != nil {
		return nil, fmt.Errorf("cuda:%d: %w", ordinal, err)
	}
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("cuda: count devices: %w", err)
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("cuda:%d: no such device (%d found)", ordinal, n)
	}
	c := &Context{ordinal: ordinal}
	if c.dev, err = cu.GetDevice(ordinal); err != nil {
		return nil, fmt.Errorf("cuda:%d: %w", ordinal, err)
	}
	if c.name, err = c.dev.Name(); err != nil {
		return nil, fmt.Errorf("cuda:%d: name: %w", ordinal, err)
	}
	if c.ctx, err = c.dev.RetainPrimaryCtx(); err != nil {
		return nil, fmt.Errorf("cuda:%d: retain primary context: %w", ordinal, err)
	}
	return c, nil
}

// Ordinal is the device's CUDA ordinal, as in "cuda:0".
func (c *Context) Ordinal() int { return c.ordinal }

// DeviceName is the device's name as the driver gives it ("NVIDIA H200").
func (c *Context) DeviceName() string { return c.name }

// Device is the driver's handle of the device.
func (c *Context) Device() cu.Device { return c.dev }

// SetCurrent makes the context current on the calling thread, which the
// caller has locked; the error is the driver's.
func (c *Context) SetCurrent() error { return cu.SetCurrentContext(c.ctx) }

// Bind locks the calling goroutine to its thread and makes the context
// current there; the returned func undoes the lock.
func (c *Context) Bind() (func(), error) {
	runtime.LockOSThread()
	if err := cu.SetCurrentContext(c.ctx); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("cuda:%d: set context: %w", c.ordinal, err)
	}
	return runtime.UnlockOSThread, nil
}

// Release releases the primary context, for an owner that unloads its own
// modules first and wraps the error in its own message; a second call
// does nothing.
func (c *Context) Release() error {
	if c.ctx == (cu.CUContext{}) {
		return nil
	}
	err := c.dev.ReleasePrimaryCtx()
	c.ctx = cu.CUContext{}
	if err != nil {
		return fmt.Errorf("release primary context: %w", err)
	}
	return nil
}

// Close releases the primary context; what was loaded or allocated in it
// must be freed first. A second call does nothing.
func (c *Context) Close() error {
	if err := c.Release(); err != nil {
		return fmt.Errorf("cuda:%d: close: %w", c.ordinal, err)
	}
	return nil
}
