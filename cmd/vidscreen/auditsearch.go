package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// auditSearches places the audit's searches (the attackers' copy joins and
// k-NN, cross-store and retrieval top-k, the near-duplicate join, read a
// tile pair at a time, and the perceptual video identity's join) on the
// first GPU --device names, when this binary has the GPU kernels and that
// GPU opens; else on the CPU, after one line on warn saying why (gpuFor's).
// The models may use several GPUs; the searches use one, as neardup's
// join does: those of kernels.DefaultMinWork multiply-adds or more, one
// at a time (kernels.Offload), so that the units running at once do not
// add up device buffers outside the models' memory budget. Every backend
// finds the CPU's pairs and neighbours, so the audit's outputs do not
// depend on where they ran. note hears the device the searches run on;
// the returned func releases it.
func auditSearches(device, precision string, env *environment, warn io.Writer, note func(msg string, args ...any)) (kernels.Joiner, kernels.NeighbourSearcher, func(), error) {
	spec, err := gpu.ParseSpec(device)
	if err != nil {
		return nil, nil, nil, &usageError{err.Error()}
	}
	one := device
	if spec.CUDA && len(spec.Indices) > 1 {
		one = fmt.Sprintf("cuda:%d", spec.Indices[0])
	}
	// gpuFor's line is a warning when it says why not, and only a note
	// when it names the device: the reporter keeps them apart.
	var said bytes.Buffer
	genv := *env
	genv.stderr = &said
	d, done, err := gpuFor(one, precision, "searching", &genv)
	if err != nil {
		return nil, nil, nil, err
	}
	if d == nil {
		if _, err := warn.Write(said.Bytes()); err != nil {
			done()
			return nil, nil, nil, fmt.Errorf("--device %s: %w", device, err)
		}
		return nil, nil, done, nil
	}
	// The audit asks for many small searches too (a benchmark's prefix,
	// once per order), which the CPU answers before a device is set up.
	note("searches", "device", d.Name(), "from_multiply_adds", kernels.DefaultMinWork, "at_once", 1)
	b := &cuda.Backend{Device: d}
	s := kernels.NewOffload(b, b, 0, 1)
	return s, s, done, nil
}
