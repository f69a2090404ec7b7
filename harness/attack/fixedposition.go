package attack

import (
	"context"
	"math"

	"github.com/vidscreen/vidscreen/harness"
)

// fixedPosition always picks the position that was most often correct among
// the earlier items of the benchmark with the same number of options
// (Video-Index 3.2: "picks the most frequent answer position"). Only earlier
// items count, so it never sees the gold answer of the item it answers; ties
// go to a seeded choice among the tied positions.
type fixedPosition struct{}

func (*fixedPosition) Name() string         { return "fixed-position" }
func (*fixedPosition) Level() harness.Level { return harness.LevelOption }
func (*fixedPosition) prequential()         {}

func (a *fixedPosition) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	out := make([]Prediction, len(s.Items))
	for _, store := range benchmarkStores(s) {
		counts := map[int][]int{} // option count -> gold position counts
		for _, i := range store {
			it := s.Items[i]
			n := len(it.Options)
			c := counts[n]
			if c == nil {
				c = make([]int, n)
				counts[n] = c
			}
			total := 0
			for _, v := range c {
				total += v
			}
			if total == 0 {
				out[i] = abstain(s.Seed, a.Name(), it)
			} else {
				// Laplace-smoothed position frequencies as the scores: the
				// choice is the mode, the margin says how clear it is.
				sc := make([]float64, n)
				for j, v := range c {
					sc[j] = math.Log(float64(v+1) / float64(total+n))
				}
				out[i] = decide(sc, s.Seed, a.Name(), it)
			}
			c[it.Answer]++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
