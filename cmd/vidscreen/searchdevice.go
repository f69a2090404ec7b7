package main

import (
	"bytes"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// placeSearches opens the first GPU --device names for a command's
// searches (gpuFor's rules: bin/vidscreen-cuda, and a GPU that opens) and
// returns kernels.Offload over its Backend: the searches of minWork
// multiply-adds or more go there one at a time, so that the searches a
// command runs at once add up no device buffers, and the smaller ones stay
// on the CPU. off is nil when the searches run on the CPU; said is then
// gpuFor's one line saying why (empty for cpu), for the caller to write
// where its warnings go. Every backend finds the CPU's pairs and
// neighbours, so no output depends on where they ran. done releases the
// device.
func placeSearches(device gpu.Spec, precision cuda.Precision, minWork int64, env *environment) (off *kernels.Offload, name string, said []byte, done func(), err error) {
	one := device
	if device.CUDA && len(device.Indices) > 1 {
		one.Indices = device.Indices[:1]
	}
	var buf bytes.Buffer
	genv := *env
	genv.stderr = &buf
	d, done, err := gpuFor(one, precision, "searching", &genv)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if d == nil {
		return nil, "", buf.Bytes(), done, nil
	}
	b := &cuda.Backend{Device: d}
	return kernels.NewOffload(b, b, minWork, 1), d.Name(), nil, done, nil
}
