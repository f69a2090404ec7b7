package run

import (
	"runtime"

	"github.com/vidscreen/vidscreen/kernels"
)

// kernelOptions is the kernels.Options of the run's passes over all its items
// (the near-duplicate join, the perceptual video identity): every core,
// on the backend the caller placed the searches on.
func (o Options) kernelOptions() kernels.Options {
	return kernels.Options{Threads: runtime.GOMAXPROCS(0), Joiner: o.Joiner, Searcher: o.Searcher}
}
