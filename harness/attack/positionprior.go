package attack

import (
	"context"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// positionPrior is the L0 pool attacker (Video-Index appendix, tables 14-15:
// "L0 learns answer-position priors"): the distribution of the gold position
// among earlier items of the benchmark, conditioned on the option count and
// on the question's first word (its wh-word: "why", "how", "is", ...), and
// backed off to the option count alone by Dirichlet smoothing. Unlike the
// option-level fixed-position attacker it reads the question, which the pool
// level allows.
type positionPrior struct{}

func (*positionPrior) Name() string         { return "position-prior" }
func (*positionPrior) Level() harness.Level { return harness.LevelPool }
func (*positionPrior) prequential()         {}

// priorStrength is the weight, in items, of the option-count prior in the
// smoothed per-question-type distribution: a question type needs a few items
// of its own before its positions override the benchmark's.
const priorStrength = 4

func (a *positionPrior) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	out := make([]Prediction, len(s.Items))
	type key struct {
		n     int
		qtype string
	}
	for _, store := range benchmarkStores(s) {
		byCount := map[int][]float64{}
		byType := map[key][]float64{}
		for _, i := range store {
			it := s.Items[i]
			n := len(it.Options)
			k := key{n, questionType(it.Question)}
			bc, bt := byCount[n], byType[k]
			if bc == nil {
				bc = make([]float64, n)
				byCount[n] = bc
			}
			if bt == nil {
				bt = make([]float64, n)
				byType[k] = bt
			}
			var nc, nt float64
			for j := range bc {
				nc += bc[j]
				nt += bt[j]
			}
			if nc == 0 {
				out[i] = abstain(s.Seed, a.Name(), it)
			} else {
				w := make([]float64, n)
				for j := range w {
					base := (bc[j] + 1) / (nc + float64(n))
					w[j] = (bt[j] + priorStrength*base) / (nt + priorStrength)
				}
				out[i] = decide(logNormalize(w), s.Seed, a.Name(), it)
			}
			bc[it.Answer]++
			bt[it.Answer]++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// questionType is the question's first word, lower-cased.
func questionType(q string) string {
	f := strings.Fields(normText(q))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
