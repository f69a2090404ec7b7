package main

import (
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// precisionFlagHelp is the --precision flag's help, shared by the commands
// that join on a device.
const precisionFlagHelp = "`PRECISION` of the GPU's tile products: fp32, tf32 or bf16 (tensor cores: cuBLAS's TF32 mode or BF16 GemmEx, else the binary's own mma kernels; pairs within the band of tau, about 2e-3 under tf32 and 2e-2 under bf16, are recomputed as the CPU computes them, so the pairs are the same); ignored on the CPU"

// placeEnv is what package place reads of the command's environment.
func placeEnv(env *environment) place.Env {
	return place.Env{Stderr: env.stderr, Getenv: env.getenv}
}

// gpuFor opens the GPU that --device names, for the kernels of what
// (place.GPU); a bad --device or --precision is bad usage.
func gpuFor(device, precision, what string, env *environment) (cuda.GramDevice, func(), error) {
	d, done, err := place.GPU(device, precision, what, placeEnv(env))
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	return d, done, nil
}

// joinerFor returns the threshold join --device names (place.Joiner).
func joinerFor(device, precision string, env *environment) (kernels.Joiner, func(), error) {
	j, done, err := place.Joiner(device, precision, placeEnv(env))
	if err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	return j, done, nil
}
