package selection

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/place"
)

// searches is where a selection's searches run: the scenes' leader
// clustering (release.FromScreen) and the red team's copy joins, k-NN,
// cross-store and retrieval top-k (attack.Config). Nil joiner and searcher
// are the CPU kernels.
type searches struct {
	joiner   kernels.Joiner
	searcher kernels.NeighbourSearcher
	done     func()
}

func (p *searches) options() kernels.Options {
	return kernels.Options{Joiner: p.joiner, Searcher: p.searcher}
}

// placeSearches places the searches on the first GPU spec.Device names
// (place.Searches: from OffloadMinWork multiply-adds, one at a time), as
// the audit places its own, and says in one line on env.Stderr where they
// run: the GPU and the cut, or why the CPU (nothing for the CPU asked).
// The release is the same bytes either way; only the time changes. A
// device the searches cannot take (a list of GPUs, a bad
// $VIDSCREEN_CUDA_PRECISION) is a *harness.UsageError.
func placeSearches(spec *Spec, env run.Env) (*searches, error) {
	prec := cuda.FP32
	if spec.Precision != "" {
		var err error
		if prec, err = cuda.ParsePrecision(spec.Precision); err != nil {
			return nil, harness.Usagef("--precision %s: want fp32, tf32 or bf16", spec.Precision)
		}
	}
	off, name, said, done, err := place.Searches(spec.Device, prec, spec.OffloadMinWork, place.Env{Stderr: env.Stderr, Getenv: env.Getenv})
	if err != nil {
		return nil, &harness.UsageError{Msg: err.Error()}
	}
	if off == nil {
		if _, err := env.Stderr.Write(said); err != nil {
			done()
			return nil, fmt.Errorf("--device %s: %w", spec.Device, err)
		}
		return &searches{done: done}, nil
	}
	fmt.Fprintf(env.Stderr, "vidscreen select: searching on %s (searches of %d multiply-adds or more; the smaller on the CPU)\n", name, spec.OffloadMinWork)
	return &searches{joiner: off, searcher: off, done: done}, nil
}
