package run

import (
	"context"
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// permutations runs the option-permutation audit: every model reader whose
// prompt lists the options answers every item on its original options and
// on attack.OptionPermutations seeded permutations of them, and each
// benchmark gets, per reader, the accuracy of each order, their range and
// the share of items whose chosen option text changes. The readers are
// deterministic, so a resumed run recomputes the same figures.
func (a *audit) permutations(ctx context.Context) (map[string]map[string]*metrics.Permutation, error) {
	out := map[string]map[string]*metrics.Permutation{}
	for _, at := range a.attackers {
		if !attack.PermutesOptions(at) {
			continue
		}
		base := &attack.Stream{Seed: a.opt.Seed, Items: a.items}
		if attack.FrameNeeds(at) != 0 {
			base.Visual = a.visual
		}
		k := attack.OptionPermutations
		chosen := make([][]string, k+1) // per order, per item: the chosen option's text
		right := make([][]bool, k+1)
		for o := 0; o <= k; o++ {
			s, from := attack.PermuteOptions(base, a.opt.Seed, o)
			preds, err := at.Attack(ctx, s)
			if err != nil {
				return nil, fmt.Errorf("option permutation %d of %s: %w", o, at.Name(), err)
			}
			if len(preds) != len(a.items) {
				return nil, fmt.Errorf("option permutation %d of %s: %d predictions for %d items", o, at.Name(), len(preds), len(a.items))
			}
			chosen[o], right[o] = make([]string, len(a.items)), make([]bool, len(a.items))
			for i, pr := range preds {
				it := a.items[i]
				if pr.Choice < 0 || pr.Choice >= len(it.Options) {
					return nil, fmt.Errorf("option permutation %d of %s: item %s: choice %d out of range", o, at.Name(), it.Source, pr.Choice)
				}
				orig := from[i][pr.Choice]
				chosen[o][i], right[o][i] = it.Options[orig], orig == it.Answer
			}
		}
		for bench, idx := range byBenchmark(a.items) {
			p := &metrics.Permutation{Permutations: k, N: len(idx), AccuracyMin: math.Inf(1), AccuracyMax: math.Inf(-1)}
			changed := 0
			for _, i := range idx {
				for o := 1; o <= k; o++ {
					if chosen[o][i] != chosen[0][i] {
						changed++
						break
					}
				}
			}
			for o := 0; o <= k; o++ {
				c := 0
				for _, i := range idx {
					if right[o][i] {
						c++
					}
				}
				acc := round4(float64(c) / float64(len(idx)))
				p.Accuracies = append(p.Accuracies, acc)
				p.AccuracyMin, p.AccuracyMax = min(p.AccuracyMin, acc), max(p.AccuracyMax, acc)
			}
			p.ChangedShare = round4(float64(changed) / float64(len(idx)))
			if out[bench] == nil {
				out[bench] = map[string]*metrics.Permutation{}
			}
			out[bench][at.Name()] = p
		}
	}
	return out, nil
}

// byBenchmark lists the indices of each benchmark's items.
func byBenchmark(items []*harness.Item) map[string][]int {
	out := map[string][]int{}
	for i, it := range items {
		out[it.Benchmark] = append(out[it.Benchmark], i)
	}
	return out
}
