package models

import (
	"context"
	"fmt"
	"slices"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/gpu"
)

// TensorInfo describes one input or output of a session. A dimension of -1
// is dynamic (named in the model, such as batch_size).
type TensorInfo struct {
	Name  string  `json:"name"`
	Type  string  `json:"type"`
	Shape []int64 `json:"shape"`
}

func (t TensorInfo) String() string {
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		if d < 0 {
			dims[i] = "?"
		} else {
			dims[i] = fmt.Sprint(d)
		}
	}
	return fmt.Sprintf("%s %s[%s]", t.Name, t.Type, strings.Join(dims, ","))
}

// A Session is one loaded ONNX model on one device. Run is safe for
// concurrent use (ONNX Runtime's Run is thread-safe).
type Session struct {
	path    string
	device  gpu.Device
	inputs  []TensorInfo
	outputs []TensorInfo
	s       *ort.DynamicAdvancedSession
}

// ShapeProfile says whether a model's inputs keep one shape from run to run
// (an image tower at a fixed resolution) or change (text of varying
// length): ONNX Runtime's memory pattern planning only pays off for the
// former, and costs memory for the latter; on CUDA the arena grows by what
// variable shapes ask for.
type ShapeProfile int

// The shape profiles.
const (
	DynamicShapes ShapeProfile = iota
	FixedShapes
)

// NewSession loads the model at path on dev. When dev is a CUDA device whose
// provider does not load, the session runs on the CPU and the runtime says
// why, once.
func (r *Runtime) NewSession(path string, dev gpu.Device, profile ShapeProfile) (*Session, error) {
	in, out, err := sessionInfo(path)
	if err != nil {
		return nil, err
	}
	sess := &Session{path: path, device: dev, inputs: in, outputs: out}
	if dev.Kind == gpu.CUDA {
		s, err := r.newORTSession(path, dev, profile, in, out)
		if err == nil {
			sess.s = s
			return sess, nil
		}
		r.noteFallback(dev, r.cudaMissing(err))
		sess.device = gpu.CPUDevice()
	}
	s, err := r.newORTSession(path, gpu.CPUDevice(), profile, in, out)
	if err != nil {
		return nil, err
	}
	sess.s = s
	return sess, nil
}

// sessionOptions sets threads, graph optimisation and memory arena for a
// device and shape profile.
func (r *Runtime) sessionOptions(dev gpu.Device, profile ShapeProfile) (*ort.SessionOptions, error) {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	threads := r.threads
	if dev.Kind == gpu.CUDA {
		// With CUDA the CPU only feeds the GPU; one thread avoids spinning
		// a pool per session on machines with several GPUs.
		threads = 1
	}
	steps := []error{
		o.SetIntraOpNumThreads(threads),
		o.SetInterOpNumThreads(1),
		o.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll),
		o.SetCpuMemArena(true),
		o.SetMemPattern(profile == FixedShapes),
	}
	if err := firstError(steps); err != nil {
		o.Destroy()
		return nil, fmt.Errorf("session options: %w", err)
	}
	if dev.Kind == gpu.CUDA {
		cuda, err := ort.NewCUDAProviderOptions()
		if err != nil {
			o.Destroy()
			return nil, err
		}
		defer cuda.Destroy()
		if err := cuda.Update(r.cudaOptions(dev, profile)); err != nil {
			o.Destroy()
			return nil, err
		}
		if err := o.AppendExecutionProviderCUDA(cuda); err != nil {
			o.Destroy()
			return nil, err
		}
	}
	return o, nil
}

func (r *Runtime) newORTSession(path string, dev gpu.Device, profile ShapeProfile, in, out []TensorInfo) (*ort.DynamicAdvancedSession, error) {
	o, err := r.sessionOptions(dev, profile)
	if err != nil {
		return nil, err
	}
	defer o.Destroy()
	s, err := ort.NewDynamicAdvancedSession(path, names(in), names(out), o)
	if err != nil {
		return nil, fmt.Errorf("load %s on %s: %w", path, dev.ID(), err)
	}
	return s, nil
}

func sessionInfo(path string) (in, out []TensorInfo, err error) {
	o, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, err
	}
	defer o.Destroy()
	// Reading names and shapes needs no optimisation; skipping it makes the
	// extra load cheap.
	if err := o.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, nil, err
	}
	ins, outs, err := ort.GetInputOutputInfoWithOptions(path, o)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	conv := func(v []ort.InputOutputInfo) []TensorInfo {
		r := make([]TensorInfo, len(v))
		for i, x := range v {
			r[i] = TensorInfo{Name: x.Name, Type: elemTypeName(x.DataType), Shape: slices.Clone([]int64(x.Dimensions))}
		}
		return r
	}
	return conv(ins), conv(outs), nil
}

func elemTypeName(t ort.TensorElementDataType) string {
	switch t {
	case ort.TensorElementDataTypeFloat:
		return "float32"
	case ort.TensorElementDataTypeFloat16:
		return "float16"
	case ort.TensorElementDataTypeInt64:
		return "int64"
	case ort.TensorElementDataTypeInt32:
		return "int32"
	case ort.TensorElementDataTypeBool:
		return "bool"
	case ort.TensorElementDataTypeUint8:
		return "uint8"
	case ort.TensorElementDataTypeDouble:
		return "float64"
	}
	return strings.ToLower(strings.TrimPrefix(t.String(), "ONNX_TENSOR_ELEMENT_DATA_TYPE_"))
}

func names(v []TensorInfo) []string {
	r := make([]string, len(v))
	for i, x := range v {
		r[i] = x.Name
	}
	return r
}

func firstError(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Path returns the model file.
func (s *Session) Path() string { return s.path }

// Device returns where the session runs (the CPU after a CUDA fallback).
func (s *Session) Device() gpu.Device { return s.device }

// Inputs returns the model's inputs in order.
func (s *Session) Inputs() []TensorInfo { return s.inputs }

// Outputs returns the model's outputs in order.
func (s *Session) Outputs() []TensorInfo { return s.outputs }

// Input returns the input called name.
func (s *Session) Input(name string) (TensorInfo, bool) { return find(s.inputs, name) }

// Output returns the output called name.
func (s *Session) Output(name string) (TensorInfo, bool) { return find(s.outputs, name) }

func find(v []TensorInfo, name string) (TensorInfo, bool) {
	for _, x := range v {
		if x.Name == name {
			return x, true
		}
	}
	return TensorInfo{}, false
}

// Run feeds inputs by name and returns every output by name. The caller owns
// the outputs and must Destroy them. A cancelled ctx stops the run.
func (s *Session) Run(ctx context.Context, inputs map[string]ort.Value) (map[string]ort.Value, error) {
	return s.RunInto(ctx, inputs, nil)
}

// RunInto is Run with some outputs written into tensors the caller made
// (say, a reused buffer for a large logits output, which saves ONNX Runtime
// an allocation and onnxruntime_go a copy). The returned map holds only the
// other outputs.
func (s *Session) RunInto(ctx context.Context, inputs, prealloc map[string]ort.Value) (map[string]ort.Value, error) {
	in := make([]ort.Value, len(s.inputs))
	for i, x := range s.inputs {
		v, ok := inputs[x.Name]
		if !ok {
			return nil, fmt.Errorf("run %s: input %s not given", s.path, x.Name)
		}
		in[i] = v
	}
	if len(inputs) != len(s.inputs) {
		for n := range inputs {
			if _, ok := s.Input(n); !ok {
				return nil, fmt.Errorf("run %s: the model has no input %s", s.path, n)
			}
		}
	}
	out := make([]ort.Value, len(s.outputs))
	for i, x := range s.outputs {
		out[i] = prealloc[x.Name]
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var err error
	if ctx.Done() == nil {
		err = s.s.Run(in, out)
	} else {
		err = s.runCancelable(ctx, in, out)
	}
	res := make(map[string]ort.Value, len(out))
	for i, x := range s.outputs {
		if _, given := prealloc[x.Name]; !given && out[i] != nil {
			res[x.Name] = out[i]
		}
	}
	if err != nil {
		destroyMap(res)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("run %s: %w", s.path, err)
	}
	return res, nil
}

func (s *Session) runCancelable(ctx context.Context, in, out []ort.Value) error {
	ro, err := ort.NewRunOptions()
	if err != nil {
		return err
	}
	defer ro.Destroy()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			ro.Terminate()
		case <-done:
		}
	}()
	err = s.s.RunWithOptions(in, out, ro)
	close(done)
	<-stopped
	return err
}

// Close releases the session.
func (s *Session) Close() error {
	if s.s == nil {
		return nil
	}
	err := s.s.Destroy()
	s.s = nil
	return err
}

func destroyValues(vs []ort.Value) {
	for _, v := range vs {
		if v != nil {
			v.Destroy()
		}
	}
}

// destroyMap destroys every value of a Run result.
func destroyMap(vs map[string]ort.Value) {
	for _, v := range vs {
		if v != nil {
			v.Destroy()
		}
	}
}
