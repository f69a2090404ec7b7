package main

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// precisionFlagHelp is the --precision flag's help, shared by the commands
// that join on a device.
const precisionFlagHelp = "`PRECISION` of the GPU's tile products: fp32, tf32 or bf16 (tensor cores: cuBLAS's TF32 mode or BF16 GemmEx, else the binary's own mma kernels; pairs within the band of tau, about 2e-3 under tf32 and 2e-2 under bf16, are recomputed as the CPU computes them, so the pairs are the same); ignored on the CPU"

// parsePrecision reads --precision (or VIDSCREEN_CUDA_PRECISION when the
// flag is left at its default).
func parsePrecision(flag string, getenv func(string) string) (cuda.Precision, error) {
	p := strings.ToLower(flag)
	if p == "" || p == "fp32" {
		if e := strings.ToLower(getenv("VIDSCREEN_CUDA_PRECISION")); e != "" {
			p = e
		}
	}
	if p == "" {
		return cuda.FP32, nil
	}
	prec, err := cuda.ParsePrecision(p)
	if err != nil {
		return cuda.FP32, fmt.Errorf("--precision %s: want fp32, tf32 or bf16", p)
	}
	return prec, nil
}

// gpuFor opens the GPU that --device names, for the kernels of what (a
// verb for the message: "joining"). It returns nil for cpu; for cuda or
// cuda:N the device of kernels/cuda when this binary has them
// (bin/vidscreen-cuda, built with -tags cuda) and it opens, else nil after
// one line on stderr saying why. The results are the same either way, so
// falling back changes only the time. The returned func releases the
// device.
func gpuFor(device, precision, what string, env *environment) (cuda.GramDevice, func(), error) {
	spec, err := gpu.ParseSpec(device)
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	prec, err := parsePrecision(precision, env.getenv)
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	if !spec.CUDA {
		return nil, func() {}, nil
	}
	if len(spec.Indices) > 1 {
		return nil, nil, &usageError{fmt.Sprintf("--device %s: the kernels run on one GPU (cuda:N)", device)}
	}
	ordinal := 0
	if len(spec.Indices) == 1 {
		ordinal = spec.Indices[0]
	}
	d, done, err := openGPUDevice(ordinal, prec, env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "vidscreen: --device %s: %v; %s on the CPU\n", device, err, what)
		return nil, func() {}, nil
	}
	fmt.Fprintf(env.stderr, "vidscreen: %s on %s\n", what, d.Name())
	return d, done, nil
}

// joinerFor returns the threshold join --device names (see gpuFor): the
// GPU's through kernels/cuda.Backend, or the CPU kernels.
func joinerFor(device, precision string, env *environment) (kernels.Joiner, func(), error) {
	d, done, err := gpuFor(device, precision, "joining", env)
	if err != nil || d == nil {
		return kernels.CPU{}, done, err
	}
	return &cuda.Backend{Device: d}, done, nil
}
