package main

import (
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
// join does: those of minWork multiply-adds or more (--offload-min-work),
// one at a time (placeSearches), so that the units running at once do not
// add up device buffers outside the models' memory budget. Every backend
// finds the CPU's pairs and neighbours, so the audit's outputs do not
// depend on where they ran. note hears the device the searches run on and
// the cut; the returned func releases it.
func auditSearches(device gpu.Spec, precision cuda.Precision, minWork int64, env *environment, warn io.Writer, note func(msg string, args ...any)) (kernels.Joiner, kernels.NeighbourSearcher, func(), error) {
	off, name, said, done, err := placeSearches(device, precision, minWork, env)
	if err != nil {
		return nil, nil, nil, err
	}
	if off == nil {
		// gpuFor's line is a warning when it says why not: the reporter
		// keeps warnings apart from notes.
		if _, err := warn.Write(said); err != nil {
			done()
			return nil, nil, nil, fmt.Errorf("--device %s: %w", device, err)
		}
		return nil, nil, done, nil
	}
	// The audit asks for many small searches too (a benchmark's prefix,
	// once per order), which the CPU answers before a device is set up.
	note("searches", "device", name, "from_multiply_adds", minWork, "at_once", 1)
	return off, off, done, nil
}
