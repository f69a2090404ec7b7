package kernels

// The package-level searches (ThresholdJoin, TopK, TopKEarlier,
// ThresholdJoinRows) run on the backend their Options name, so that every
// caller that passes Options along (the attackers' copy and k-NN searches,
// the near-duplicate joins) is placed by whoever built the Options, in one
// place, with no global backend.

// joiner is the Joiner o names: the CPU kernels when none.
func (o Options) joiner() Joiner {
	if o.Joiner != nil {
		return o.Joiner
	}
	return CPU{}
}

// searcher is the NeighbourSearcher o names: the CPU kernels when none.
func (o Options) searcher() NeighbourSearcher {
	if o.Searcher != nil {
		return o.Searcher
	}
	return CPU{}
}

// bounds is o without its backends: what a backend is handed, so that one
// that falls back to the package functions for a corner it does not take
// runs them on the CPU instead of calling itself again.
func (o Options) bounds() Options {
	return Options{Threads: o.Threads}
}
