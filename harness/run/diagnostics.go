package run

import (
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// runsDiagnostics reports whether a run with these needs runs the halves
// and shifted grids: with the order level's VLM readers, that is with the
// order level and a vlm_reader.
func runsDiagnostics(needs attack.Needs) bool {
	return needs.Has(attack.NeedVLMShuffled) || needs.Has(attack.NeedVLMTenth)
}

// diagnosticSets returns the base of the order diagnostics and their
// conditions: the halves and shifted grids, then the order level's own
// shuffled and contiguous-tenth sets when their readers run, since their
// retention against the same model on the in-order frames is Video-Index
// 3.6's headline ("shuffling retains a median 96%").
func diagnosticSets(needs attack.Needs, frames int) (features.VLMSet, []features.VLMSet) {
	base, conds := features.DiagnosticSets(frames)
	_, shuffled, tenth := features.VLMSets(frames)
	if needs.Has(attack.NeedVLMShuffled) {
		conds = append(conds, shuffled)
	}
	if needs.Has(attack.NeedVLMTenth) {
		conds = append(conds, tenth)
	}
	return base, conds
}

// orderDiagnostics computes each benchmark's halves and shifted grids from
// vlm_reader's letter scores (scores[i] by set name; nil for an item whose
// video failed): per condition, the accuracy over the items it answered
// (the best letter is the answer) and the retention against the base set
// on the items both answered.
func orderDiagnostics(items []*harness.Item, scores []map[string][]float64, base features.VLMSet, conds []features.VLMSet, model string, frames int) map[string]*metrics.OrderDiagnostics {
	answer := func(i int, set string) (right, ok bool) {
		s := scores[i][set]
		if len(s) != len(items[i].Options) {
			return false, false
		}
		return argmax(s) == items[i].Answer, true
	}
	out := map[string]*metrics.OrderDiagnostics{}
	for bench, idx := range byBenchmark(items) {
		d := &metrics.OrderDiagnostics{Model: model, Frames: frames}
		var ok, n int
		for _, i := range idx {
			if r, has := answer(i, base.Name); has {
				n++
				if r {
					ok++
				}
			}
		}
		d.N = n
		if n > 0 {
			d.Accuracy = roundTo(float64(ok) / float64(n))
		}
		for _, c := range conds {
			oc := metrics.OrderCondition{Name: strings.TrimPrefix(c.Name, "vlm-")}
			var cok, cn, both, bothBase, bothCond int
			for _, i := range idx {
				r, has := answer(i, c.Name)
				if !has {
					continue
				}
				cn++
				if r {
					cok++
				}
				if rb, hasBase := answer(i, base.Name); hasBase {
					both++
					if rb {
						bothBase++
					}
					if r {
						bothCond++
					}
				}
			}
			oc.N = cn
			if cn > 0 {
				oc.Accuracy = roundTo(float64(cok) / float64(cn))
			}
			if both > 0 && bothBase > 0 {
				oc.Retention = roundTo(float64(bothCond) / float64(bothBase))
			}
			d.Conditions = append(d.Conditions, oc)
		}
		out[bench] = d
	}
	return out
}

// dedupeSets drops the sets whose name an earlier one has (the reference's
// full protocol is the diagnostics' base at 32 frames).
func dedupeSets(sets []features.VLMSet) []features.VLMSet {
	var out []features.VLMSet
	for _, s := range sets {
		if !slices.ContainsFunc(out, func(o features.VLMSet) bool { return o.Name == s.Name }) {
			out = append(out, s)
		}
	}
	return out
}
