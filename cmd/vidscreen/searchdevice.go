package main

import (
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// placeSearches places a command's searches on the first GPU --device
// names (place.Searches); a bad value is bad usage.
func placeSearches(device gpu.Spec, precision cuda.Precision, minWork int64, env *environment) (off *kernels.Offload, name string, said []byte, done func(), err error) {
	off, name, said, done, err = place.Searches(device, precision, minWork, placeEnv(env))
	if err != nil {
		return nil, "", nil, nil, &usageError{err.Error()}
	}
	return off, name, said, done, nil
}
