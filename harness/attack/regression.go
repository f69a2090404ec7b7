package attack

import (
	"context"
	"fmt"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// regression is the pool-level online logistic regression of Video-Index 3.4
// (after Brown et al.'s predictive auditing): answer letters predicted from
// question+options embeddings, each item answered by the model of the items
// before it in the benchmark's store, then learned (docs/attackers.md: alpha 1e-4,
// eta 0.03, averaged weights, standardised features divided by sqrt(dim),
// one-hot of the option count). It runs on the rotating splits; its margin is
// read on the fold each order puts last (the final fifth) and its learning
// curve over all positions.
type regression struct{ cfg Config }

func (*regression) Name() string         { return "regression" }
func (*regression) Level() harness.Level { return harness.LevelPool }
func (*regression) prequential()         {}
func (*regression) usesText()            {}

func (p SGDParams) kernel() kernels.SGDConfig {
	return kernels.SGDConfig{Alpha: p.Alpha, Eta: p.Eta, Average: p.Average, Standardize: p.Standardize, OneHotClasses: p.OneHotClasses}
}

func (a *regression) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Text, s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for _, store := range benchmarkStores(s) {
		y := make([]int32, len(store))
		nc := make([]int32, len(store))
		maxC := 0
		for k, i := range store {
			it := s.Items[i]
			y[k], nc[k] = int32(it.Answer), int32(len(it.Options))
			maxC = max(maxC, len(it.Options))
		}
		sgd := a.cfg.SGD.kernel()
		sgd.Progress = s.Progress
		lp, err := kernels.PrequentialLogistic(ctx, subRows(s.Text, store), y, nc, maxC, sgd)
		if err != nil {
			return nil, fmt.Errorf("regression: %w", err)
		}
		for k, i := range store {
			it := s.Items[i]
			row := lp.Row(k)
			sc := make([]float64, len(it.Options))
			for j := range sc {
				sc[j] = float64(row[j])
				if math.IsInf(sc[j], 0) || math.IsNaN(sc[j]) {
					return nil, fmt.Errorf("regression: item %s: log-probability %v for option %d", it.ID, sc[j], j)
				}
			}
			if k == 0 {
				out[i] = abstain(s.Seed, a.Name(), it) // nothing learned yet
				continue
			}
			out[i] = decide(sc, s.Seed, a.Name(), it)
		}
	}
	return out, nil
}
