package main

import (
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
)

// joinerFor returns the threshold join --device names: the CPU kernels for
// cpu; for cuda or cuda:N the GPU kernels of kernels/cuda when this binary
// has them (bin/vidscreen-cuda, built with -tags cuda) and the device
// opens, else the CPU kernels after one line on stderr saying why. The
// pairs are the same either way, so falling back changes only the time.
// The returned func releases the device.
func joinerFor(device string, env *environment) (kernels.Joiner, func(), error) {
	spec, err := gpu.ParseSpec(device)
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	if !spec.CUDA {
		return kernels.CPU{}, func() {}, nil
	}
	if len(spec.Indices) > 1 {
		return nil, nil, &usageError{fmt.Sprintf("--device %s: the join runs on one GPU (cuda:N)", device)}
	}
	ordinal := 0
	if len(spec.Indices) == 1 {
		ordinal = spec.Indices[0]
	}
	j, done, name, err := openGPUKernels(ordinal, env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "vidscreen: --device %s: %v; running on the CPU\n", device, err)
		return kernels.CPU{}, func() {}, nil
	}
	fmt.Fprintf(env.stderr, "vidscreen: joining on %s\n", name)
	return j, done, nil
}
