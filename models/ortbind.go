package models

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"unsafe"

	"github.com/vidscreen/vidscreen/gpu"
)

// A BoundSession is a model loaded through ONNX Runtime's C API directly
// (ortapi_cgo.go), run through IoBindings over memory the caller owns: a
// Go buffer on the CPU, or a CUDA device buffer for a session on the CUDA
// provider, which then reads its input where a kernel wrote it instead of
// from a host copy. It has the settings of the Runtime's Sessions, so on
// the CPU it computes what a Session computes, bit for bit.
//
// A BoundSession is safe for concurrent use; its Bindings are not.
type BoundSession struct {
	api     *ortAPI
	env     unsafe.Pointer
	sess    unsafe.Pointer
	host    unsafe.Pointer // "Cpu" memory info
	dev     unsafe.Pointer // "Cuda" memory info of device, nil on the CPU
	path    string
	device  gpu.Device
	inputs  []TensorInfo
	outputs []TensorInfo
}

// NewBoundSession loads the model at path on dev. Unlike NewSession it does
// not fall back: a CUDA provider that does not load is an error, since a
// caller holding device memory has no use for a CPU session.
func (r *Runtime) NewBoundSession(path string, dev gpu.Device, profile ShapeProfile) (_ *BoundSession, err error) {
	in, out, err := sessionInfo(path)
	if err != nil {
		return nil, err
	}
	api, err := openORTAPI(r.library)
	if err != nil {
		return nil, err
	}
	s := &BoundSession{api: api, path: path, device: dev, inputs: in, outputs: out}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("bound session %s on %s: %w", path, dev.ID(), err), s.Close())
		}
	}()
	// The environment is ONNX Runtime's process-wide one (onnxruntime_go
	// made it; CreateEnv returns it with one more reference).
	if s.env, err = api.newEnv(); err != nil {
		return nil, err
	}
	cfg := sessionConfig{threads: r.threads, memPattern: profile == FixedShapes}
	if dev.Kind == gpu.CUDA {
		cfg.threads = 1 // as Runtime.sessionOptions: the CPU only feeds the GPU
		cfg.cuda = r.cudaOptions(dev, profile)
	}
	so, err := api.newSessionOptions(cfg)
	if err != nil {
		if dev.Kind == gpu.CUDA {
			err = r.cudaMissing(err)
		}
		return nil, err
	}
	defer api.releaseSessionOptions(so)
	if s.sess, err = api.newSession(s.env, path, so); err != nil {
		if dev.Kind == gpu.CUDA {
			err = r.cudaMissing(err)
		}
		return nil, err
	}
	if s.host, err = api.newMemoryInfo("Cpu", 0); err != nil {
		return nil, err
	}
	if dev.Kind == gpu.CUDA {
		if s.dev, err = api.newMemoryInfo("Cuda", dev.Index); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Path returns the model file.
func (s *BoundSession) Path() string { return s.path }

// Device returns where the session runs.
func (s *BoundSession) Device() gpu.Device { return s.device }

// Inputs returns the model's inputs in order.
func (s *BoundSession) Inputs() []TensorInfo { return s.inputs }

// Outputs returns the model's outputs in order.
func (s *BoundSession) Outputs() []TensorInfo { return s.outputs }

// Close releases the session, its memory infos and its references to the
// environment and the library. It is safe to call twice.
func (s *BoundSession) Close() error {
	if s.api == nil {
		return nil
	}
	a := s.api
	a.releaseMemoryInfo(s.dev)
	a.releaseMemoryInfo(s.host)
	a.releaseSession(s.sess)
	a.releaseEnv(s.env)
	s.dev, s.host, s.sess, s.env, s.api = nil, nil, nil, nil, nil
	return a.close()
}

// A BoundTensor is an OrtValue over float32 memory the caller owns: ONNX
// Runtime reads or writes it in place and never frees it. The memory must
// outlive the tensor; a Go buffer is pinned until Close.
type BoundTensor struct {
	s      *BoundSession
	v      unsafe.Pointer
	shape  []int64
	device gpu.Device
	pin    runtime.Pinner
}

func shapeLen(shape []int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("shape %v has a negative dimension", shape)
		}
		n *= d
	}
	return n, nil
}

// HostTensor wraps data, of shape, in the CPU's memory. ONNX Runtime holds
// its address, so data is pinned until the tensor is closed.
func (s *BoundSession) HostTensor(data []float32, shape ...int64) (*BoundTensor, error) {
	n, err := shapeLen(shape)
	if err != nil {
		return nil, err
	}
	if n != int64(len(data)) || n == 0 {
		return nil, fmt.Errorf("host tensor %v needs %d values, given %d", shape, n, len(data))
	}
	t := &BoundTensor{s: s, shape: slices.Clone(shape), device: gpu.CPUDevice()}
	t.pin.Pin(&data[0])
	if t.v, err = s.api.newFloatTensor(s.host, uintptr(unsafe.Pointer(&data[0])), 4*n, shape); err != nil {
		t.pin.Unpin()
		return nil, fmt.Errorf("%s: host tensor %v: %w", s.path, shape, err)
	}
	return t, nil
}

// DeviceTensor wraps bytes of device memory at ptr (a CUDA device pointer,
// such as the preprocessing kernel's output) as a tensor of shape on the
// session's GPU. The caller keeps the memory alive and unchanged until
// every run that reads it has returned.
func (s *BoundSession) DeviceTensor(ptr uintptr, bytes int64, shape ...int64) (*BoundTensor, error) {
	if s.dev == nil {
		return nil, fmt.Errorf("%s: a device tensor needs a session on a CUDA device; this one is on %s", s.path, s.device.ID())
	}
	n, err := shapeLen(shape)
	if err != nil {
		return nil, err
	}
	if ptr == 0 || n == 0 || 4*n > bytes {
		return nil, fmt.Errorf("%s: device tensor %v needs %d bytes at a non-nil address, given %d at %#x", s.path, shape, 4*n, bytes, ptr)
	}
	t := &BoundTensor{s: s, shape: slices.Clone(shape), device: s.device}
	if t.v, err = s.api.newFloatTensor(s.dev, ptr, 4*n, shape); err != nil {
		return nil, fmt.Errorf("%s: device tensor %v on %s: %w", s.path, shape, s.device.ID(), err)
	}
	return t, nil
}

// Shape returns the tensor's shape.
func (t *BoundTensor) Shape() []int64 { return t.shape }

// Close releases the OrtValue (not the memory) and unpins a Go buffer.
func (t *BoundTensor) Close() error {
	if t.v != nil {
		t.s.api.releaseValue(t.v)
		t.v = nil
	}
	t.pin.Unpin()
	return nil
}

// A Binding names the tensors one run reads and writes. It is used by one
// goroutine; the tensors bound must stay open until Run returns.
type Binding struct {
	s *BoundSession
	p unsafe.Pointer
}

// NewBinding creates an empty binding on s.
func (s *BoundSession) NewBinding() (*Binding, error) {
	p, err := s.api.newBinding(s.sess)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return &Binding{s: s, p: p}, nil
}

// BindInput makes t the model's input name.
func (b *Binding) BindInput(name string, t *BoundTensor) error {
	if _, ok := find(b.s.inputs, name); !ok {
		return fmt.Errorf("%s: the model has no input %s", b.s.path, name)
	}
	return b.bind(true, name, t)
}

// BindOutput makes ONNX Runtime write the output name into t.
func (b *Binding) BindOutput(name string, t *BoundTensor) error {
	if _, ok := find(b.s.outputs, name); !ok {
		return fmt.Errorf("%s: the model has no output %s", b.s.path, name)
	}
	return b.bind(false, name, t)
}

func (b *Binding) bind(input bool, name string, t *BoundTensor) error {
	if t == nil || t.v == nil {
		return fmt.Errorf("%s: bind %s: tensor closed", b.s.path, name)
	}
	if t.s != b.s {
		return fmt.Errorf("%s: bind %s: tensor made by the session of %s", b.s.path, name, t.s.path)
	}
	if err := b.s.api.bind(input, b.p, name, t.v); err != nil {
		return fmt.Errorf("%s: %w", b.s.path, err)
	}
	return nil
}

// Clear forgets every bound tensor.
func (b *Binding) Clear() { b.s.api.clearBinding(b.p) }

// Run runs the model on the bound inputs into the bound outputs, and waits
// for the outputs (on a GPU the run's stream may still be writing them when
// the run returns). A cancelled ctx terminates the run.
func (b *Binding) Run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	a := b.s.api
	if err := a.syncBinding(b.p, true); err != nil {
		return fmt.Errorf("%s: %w", b.s.path, err)
	}
	var err error
	if ctx.Done() == nil {
		err = a.runBinding(b.s.sess, nil, b.p)
	} else {
		err = b.runCancelable(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("run %s: %w", b.s.path, err)
	}
	if err := a.syncBinding(b.p, false); err != nil {
		return fmt.Errorf("%s: %w", b.s.path, err)
	}
	return nil
}

// runCancelable is Session.runCancelable for a binding: run options whose
// terminate flag a watcher sets when ctx is done.
func (b *Binding) runCancelable(ctx context.Context) error {
	a := b.s.api
	ro, err := a.newRunOptions()
	if err != nil {
		return err
	}
	defer a.releaseRunOptions(ro)
	done := make(chan struct{})
	stopped := make(chan struct{})
	var termErr error
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			termErr = a.terminate(ro)
		case <-done:
		}
	}()
	err = a.runBinding(b.s.sess, ro, b.p)
	close(done)
	<-stopped
	return errors.Join(err, termErr)
}

// Close releases the binding (the bound tensors stay the caller's).
func (b *Binding) Close() error {
	if b.p != nil {
		b.s.api.releaseBinding(b.p)
		b.p = nil
	}
	return nil
}
