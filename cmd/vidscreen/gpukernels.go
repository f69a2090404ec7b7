package main

import (
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// placeEnv is what package place reads of the command's environment.
func placeEnv(env *environment) place.Env {
	return place.Env{Stderr: env.stderr, Getenv: env.getenv}
}

// gpuFor opens the GPU that --device names, for the kernels of what
// (place.GPU); a list of GPUs or a bad $VIDSCREEN_CUDA_PRECISION is bad
// usage.
func gpuFor(spec gpu.Spec, precision cuda.Precision, what string, env *environment) (cuda.GramDevice, func(), error) {
	d, done, err := place.GPU(spec, precision, what, placeEnv(env))
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
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

// joinerFor returns the threshold join --device names (place.Joiner).
func joinerFor(device gpu.Spec, precision cuda.Precision, env *environment) (kernels.Joiner, func(), error) {
	j, done, err := place.Joiner(device, precision, placeEnv(env))
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	return j, done, nil
}
