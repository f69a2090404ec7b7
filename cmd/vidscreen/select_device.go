package main

import (
	"fmt"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// selectPlace is where select's searches run: the scenes' leader
// clustering (FromScreen) and the red team's copy joins, k-NN, cross-store
// and retrieval top-k (attack.Config). Nil joiner and searcher are the CPU
// kernels.
type selectPlace struct {
	joiner   kernels.Joiner
	searcher kernels.NeighbourSearcher
	done     func()
}

func (p *selectPlace) options() kernels.Options {
	return kernels.Options{Joiner: p.joiner, Searcher: p.searcher}
}

// selectSearches places select's searches on the first GPU --device names
// (placeSearches: from minWork multiply-adds, one at a time), as the audit
// places its own, and says in one line on stderr where they run: the GPU
// and the cut, or why the CPU (nothing for --device cpu). The release is
// the same bytes either way; only the time changes.
func selectSearches(device gpu.Spec, precision cuda.Precision, minWork int64, env *environment) (*selectPlace, error) {
	off, name, said, done, err := placeSearches(device, precision, minWork, env)
	if err != nil {
		return nil, err
	}
	if off == nil {
		if _, err := env.stderr.Write(said); err != nil {
			done()
			return nil, fmt.Errorf("--device %s: %w", device, err)
		}
		return &selectPlace{done: done}, nil
	}
	fmt.Fprintf(env.stderr, "vidscreen select: searching on %s (searches of %d multiply-adds or more; the smaller on the CPU)\n", name, minWork)
	return &selectPlace{joiner: off, searcher: off, done: done}, nil
}
