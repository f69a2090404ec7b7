package run

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/models/letters"
)

// firstLetterReader is an lm_reader that always favours the option shown
// first by 3 nats, so it is right exactly when the gold is listed first,
// confidently (margin about 3 > log 2).
type firstLetterReader struct{}

func (firstLetterReader) Encode(p letters.Prompt) ([]int, error) {
	if p.Options < 2 {
		return nil, errors.New("no options")
	}
	return make([]int, len(p.Text)), nil
}

func (firstLetterReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for i, p := range ps {
		out[i] = make([]float64, p.Options)
		out[i][0] = 3
		z := 0.0
		for _, v := range out[i] {
			z += math.Exp(v)
		}
		for j := range out[i] {
			out[i][j] -= math.Log(z)
		}
	}
	return out, nil
}

// The card's solved share of the options-only and blind readers judges each
// item on the first four orders of the option-permutation audit, as
// screening does (Video-Index 5.1: three of four right, mean margin above
// log 2). With a reader that picks whatever is listed first, an item is
// solved exactly when its gold is listed first in at least three of the
// audit's seeded permutations 1 to 4, which the test counts from
// attack.OptionPermutation; the original order alone would count the items
// whose gold is first as given.
func TestCardsSolvedShareOverFourOrders(t *testing.T) {
	t.Parallel()
	path := realItems(t, 40)
	const seed = 5
	res := mustAudit(t, Options{Items: []string{path}, Out: t.TempDir() + "/run", Seed: seed,
		Levels: []harness.Level{harness.LevelOption, harness.LevelText}, Reader: firstLetterReader{}, ReaderName: "first"})
	items, err := harness.ReadFiles(context.Background(), []string{path}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	four, one := map[string]int{}, map[string]int{}
	for _, it := range items {
		first := 0
		for k := 1; k <= 4; k++ { // the seeded orders, not the original
			if attack.OptionPermutation(seed, it, k)[0] == it.Answer {
				first++
			}
		}
		if first >= 3 {
			four[it.Benchmark]++
		}
		if it.Answer == 0 {
			one[it.Benchmark]++
		}
	}
	differs := false
	for _, c := range res.Cards {
		differs = differs || four[c.Benchmark] != one[c.Benchmark]
		for _, r := range c.Attackers {
			if r.Name != "options-reader" && r.Name != "blind-reader" {
				continue
			}
			got := int(math.Round(r.SolvedShare * float64(c.N)))
			if got != four[c.Benchmark] || r.SolvedOrders != 4 {
				t.Errorf("%s: %s solves %d of %d items over %d orders, want %d over 4 (the original order alone: %d)",
					c.Benchmark, r.Name, got, c.N, r.SolvedOrders, four[c.Benchmark], one[c.Benchmark])
			}
		}
	}
	if !differs {
		t.Errorf("on every benchmark four orders and one solve alike (%v): the test shows nothing; take other items", four)
	}
}
