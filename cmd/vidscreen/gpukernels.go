package main

import (
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

// joinerFor returns the threshold join --device names (place.Joiner).
func joinerFor(device gpu.Spec, precision cuda.Precision, env *environment) (kernels.Joiner, func(), error) {
	j, done, err := place.Joiner(device, precision, placeEnv(env))
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	return j, done, nil
}
