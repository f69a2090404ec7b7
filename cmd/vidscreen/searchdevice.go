package main

import (
	"bytes"
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// defaultOffloadMinWork is --offload-min-work's default: Offload's own.
const defaultOffloadMinWork = kernels.DefaultMinWork

// offloadFlagHelp is the --offload-min-work flag's help, shared by the
// commands whose many searches of every size go to a GPU through
// kernels.Offload.
const offloadFlagHelp = "on a GPU, run the searches of `N` multiply-adds (rows x rows x columns) or more there and the smaller ones on the CPU, which answers them before a device is set up; the default, 2^28 (kernels.DefaultMinWork), is an estimate that the device check's offload row measures; 1 sends every search; ignored on the CPU"

// checkOffloadMinWork refuses a cut under one multiply-add: Offload would
// read 0 as its default, which the user did not ask for.
func checkOffloadMinWork(n int64) error {
	if n < 1 {
		return &usageError{fmt.Sprintf("--offload-min-work %d: want 1 or more multiply-adds", n)}
	}
	return nil
}

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
func placeSearches(device, precision string, minWork int64, env *environment) (off *kernels.Offload, name string, said []byte, done func(), err error) {
	spec, err := gpu.ParseSpec(device)
	if err != nil {
		return nil, "", nil, nil, &usageError{err.Error()}
	}
	if err := checkOffloadMinWork(minWork); err != nil {
		return nil, "", nil, nil, err
	}
	one := device
	if spec.CUDA && len(spec.Indices) > 1 {
		one = fmt.Sprintf("cuda:%d", spec.Indices[0])
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
