package run

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/kernels"
)

// The effective size of Video-Index 4.5: the Vendi score of 200-item draws.
// effDraws draws give the mean and a 95% interval; fewer items than
// effDrawSize make one draw of all of them.
const (
	effDrawSize = 200
	effDraws    = 20
)

// effectiveSizes computes each benchmark's effective size from v (one unit
// row per item: the mean of its uniform frames' image embeddings,
// renormalised; nil rows for items without features) and t (unit question
// embeddings). Draws are seeded by the run's seed and the benchmark's name,
// so the figure does not depend on the worker count.
func effectiveSizes(ctx context.Context, items []*harness.Item, v [][]float32, t *kernels.Matrix, seed uint64, threads int) (map[string]*metrics.EffectiveSize, error) {
	byBench := map[string][]int{}
	var names []string
	for i, it := range items {
		if v[i] == nil {
			continue
		}
		if _, ok := byBench[it.Benchmark]; !ok {
			names = append(names, it.Benchmark)
		}
		byBench[it.Benchmark] = append(byBench[it.Benchmark], i)
	}
	out := map[string]*metrics.EffectiveSize{}
	for _, name := range names {
		idx := byBench[name]
		size, draws := min(effDrawSize, len(idx)), effDraws
		if len(idx) <= effDrawSize {
			draws = 1
		}
		rng := rand.New(rand.NewPCG(seed, benchSeed(name)))
		scores := make([]float64, draws)
		for d := range draws {
			pick := idx
			if len(idx) > size {
				perm := rng.Perm(len(idx))[:size]
				slices.Sort(perm)
				pick = make([]int, size)
				for k, p := range perm {
					pick[k] = idx[p]
				}
			}
			vm := kernels.NewMatrix(len(pick), len(v[pick[0]]))
			tm := kernels.NewMatrix(len(pick), t.Cols)
			for k, i := range pick {
				copy(vm.Row(k), v[i])
				copy(tm.Row(k), t.Row(i))
			}
			vs, err := kernels.VendiJoint(ctx, vm, tm, 1, nil, kernels.Options{Threads: threads})
			if err != nil {
				return nil, err
			}
			scores[d] = vs.Score
		}
		var mean float64
		for _, s := range scores {
			mean += s / float64(draws)
		}
		slices.Sort(scores)
		out[name] = &metrics.EffectiveSize{Mean: round4(mean), Low: round4(percentile(scores, 0.025)), High: round4(percentile(scores, 0.975)),
			Draws: draws, DrawSize: size, N: len(idx)}
	}
	return out, nil
}

// benchSeed hashes a benchmark's name (FNV-1a) into its draws' stream.
func benchSeed(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

// percentile interpolates linearly between the sorted values.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	x := q * float64(len(sorted)-1)
	lo := int(math.Floor(x))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (x-float64(lo))*(sorted[hi]-sorted[lo])
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// meanRows returns the unit mean of the listed rows of m (nil when rows is
// empty or the mean is zero).
func meanRows(m *kernels.Matrix, rows []int) []float32 {
	if len(rows) == 0 {
		return nil
	}
	acc := make([]float64, m.Cols)
	for _, r := range rows {
		for j, x := range m.Row(r) {
			acc[j] += float64(x)
		}
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	out := make([]float32, m.Cols)
	for j, x := range acc {
		out[j] = float32(x / norm)
	}
	return out
}
