package main

import (
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// gpuFor opens the GPU that --device names, for the kernels of what (a
// verb for the message: "joining"). It returns nil for cpu; for cuda or
// cuda:N the device of kernels/cuda when this binary has them
// (bin/vidscreen-cuda, built with -tags cuda) and it opens, else nil after
// one line on stderr saying why. The results are the same either way, so
// falling back changes only the time. The returned func releases the
// device.
func gpuFor(spec gpu.Spec, precision cuda.Precision, what string, env *environment) (cuda.GramDevice, func(), error) {
	prec, err := gpuflag.ResolvePrecision(precision, env.getenv)
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	if !spec.CUDA {
		return nil, func() {}, nil
	}
	if len(spec.Indices) > 1 {
		return nil, nil, &usageError{fmt.Sprintf("--device %s: the kernels run on one GPU (cuda:N)", spec)}
	}
	ordinal := 0
	if len(spec.Indices) == 1 {
		ordinal = spec.Indices[0]
	}
	d, done, err := openGPUDevice(ordinal, prec, env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "vidscreen: --device %s: %v; %s on the CPU\n", spec, err, what)
		return nil, func() {}, nil
	}
	fmt.Fprintf(env.stderr, "vidscreen: %s on %s\n", what, d.Name())
	return d, done, nil
}

// oneDevice is the device of a command whose models run on one (select's
// text_embed, vidomni's roles): the CPU, or the GPU --device names ("cuda"
// is GPU 0), which ONNX Runtime falls back from, saying why, when it is not
// there. A list of GPUs or cpu:N is a usage error.
func oneDevice(spec gpu.Spec) (gpu.Device, error) {
	ords := spec.Ordinals()
	if len(ords) > 1 || spec.CPUs > 1 {
		return gpu.Device{}, &usageError{fmt.Sprintf("--device %s: name one device (cpu, cuda or cuda:N)", spec)}
	}
	if len(ords) == 0 {
		return gpu.CPUDevice(), nil
	}
	return gpu.Device{Kind: gpu.CUDA, Index: ords[0]}, nil
}

// joinerFor returns the threshold join --device names (see gpuFor): the
// GPU's through kernels/cuda.Backend, or the CPU kernels.
func joinerFor(device gpu.Spec, precision cuda.Precision, env *environment) (kernels.Joiner, func(), error) {
	d, done, err := gpuFor(device, precision, "joining", env)
	if err != nil || d == nil {
		return kernels.CPU{}, done, err
	}
	return &cuda.Backend{Device: d}, done, nil
}
