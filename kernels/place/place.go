package place

import (
	"bytes"
	"fmt"
	"io"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// Env is what placing reads from its process: where the line saying where
// the work runs (or why not on the GPU) goes, and the environment's
// variables (VIDSCREEN_CUDA_PRECISION, VIDSCREEN_CUBLAS_LIB).
type Env struct {
	Stderr io.Writer
	Getenv func(string) string
}

func (e Env) stderr() io.Writer {
	if e.Stderr == nil {
		return io.Discard
	}
	return e.Stderr
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// GPU opens the GPU that device names, for the kernels of what (a verb for
// the message: "joining"). It returns nil for the CPU; for cuda or cuda:N
// the device of kernels/cuda when this binary has them (the cuda build)
// and it opens, else nil after one line on env.Stderr saying why. The
// results are the same either way, so falling back changes only the time.
// The returned func releases the device. A bad device or precision value
// from the environment is an error naming the variable.
func GPU(spec gpu.Spec, precision cuda.Precision, what string, env Env) (cuda.GramDevice, func(), error) {
	prec, err := gpuflag.ResolvePrecision(precision, env.getenv)
	if err != nil {
		return nil, nil, err
	}
	if !spec.CUDA {
		return nil, func() {}, nil
	}
	if len(spec.Indices) > 1 {
		return nil, nil, fmt.Errorf("--device %s: the kernels run on one GPU (cuda:N)", spec)
	}
	ordinal := 0
	if len(spec.Indices) == 1 {
		ordinal = spec.Indices[0]
	}
	d, done, err := openDevice(ordinal, prec, env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr(), "vidscreen: --device %s: %v; %s on the CPU\n", spec, err, what)
		return nil, func() {}, nil
	}
	fmt.Fprintf(env.stderr(), "vidscreen: %s on %s\n", what, d.Name())
	return d, done, nil
}

// Joiner returns the threshold join device names (see GPU): the GPU's
// through kernels/cuda.Backend, or the CPU kernels.
func Joiner(device gpu.Spec, precision cuda.Precision, env Env) (kernels.Joiner, func(), error) {
	d, done, err := GPU(device, precision, "joining", env)
	if err != nil || d == nil {
		return kernels.CPU{}, done, err
	}
	return &cuda.Backend{Device: d}, done, nil
}

// CheckMinWork refuses an offload cut under one multiply-add: Offload would
// read 0 as its default, which the user did not ask for.
func CheckMinWork(n int64) error {
	if n < 1 {
		return fmt.Errorf("--offload-min-work %d: want 1 or more multiply-adds", n)
	}
	return nil
}

// Searches opens the first GPU device names for a command's searches
// (GPU's rules) and returns kernels.Offload over its Backend: the searches
// of minWork multiply-adds or more go there one at a time, so that the
// searches a command runs at once add up no device buffers, and the
// smaller ones stay on the CPU, which answers them before a device is set
// up. off is nil when the searches run on the CPU; said is then GPU's one
// line saying why (empty for cpu), for the caller to write where its
// warnings go. done releases the device.
func Searches(device gpu.Spec, precision cuda.Precision, minWork int64, env Env) (off *kernels.Offload, name string, said []byte, done func(), err error) {
	if err := CheckMinWork(minWork); err != nil {
		return nil, "", nil, nil, err
	}
	one := device
	if device.CUDA && len(device.Indices) > 1 {
		one.Indices = device.Indices[:1]
	}
	var buf bytes.Buffer
	d, done, err := GPU(one, precision, "searching", Env{Stderr: &buf, Getenv: env.Getenv})
	if err != nil {
		return nil, "", nil, nil, err
	}
	if d == nil {
		return nil, "", buf.Bytes(), done, nil
	}
	b := &cuda.Backend{Device: d}
	return kernels.NewOffload(b, b, minWork, 1), d.Name(), nil, done, nil
}
