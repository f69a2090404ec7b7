package attack

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// benchmarkStores splits a stream into one store per benchmark: the indices of
// s.Items of each benchmark, in stream order. Pool attackers learn within a
// benchmark only (the "within-pool" store of Video-Index, appendix tables
// 14-15), so an item never borrows answers from another benchmark. Stores are
// listed by benchmark name.
func benchmarkStores(s *Stream) [][]int {
	at := map[string]int{}
	var names []string
	var stores [][]int
	for i, it := range s.Items {
		k, ok := at[it.Benchmark]
		if !ok {
			k = len(stores)
			at[it.Benchmark] = k
			names = append(names, it.Benchmark)
			stores = append(stores, nil)
		}
		stores[k] = append(stores[k], i)
	}
	idx := make([]int, len(stores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	out := make([][]int, len(stores))
	for i, k := range idx {
		out[i] = stores[k]
	}
	return out
}

// subRows copies the rows rows of m, in that order, into a new matrix.
func subRows(m *kernels.Matrix, rows []int) *kernels.Matrix {
	out := kernels.NewMatrix(len(rows), m.Cols)
	for k, r := range rows {
		copy(out.Row(k), m.Row(r))
	}
	return out
}

func checkRows(name string, m *kernels.Matrix, s *Stream) error {
	if m == nil {
		return fmt.Errorf("%s: stream has no embeddings", name)
	}
	if m.Rows != len(s.Items) {
		return fmt.Errorf("%s: %d embedding rows for %d items", name, m.Rows, len(s.Items))
	}
	return nil
}

// guess is the seeded guess of an attacker that abstains: a hash of the
// stream's seed, the attacker and the item's key, so that it is the same at
// any worker count and independent of the item's place in the stream.
func guess(seed uint64, attacker string, it *harness.Item) int {
	h := mix64(seed ^ keyHash(0x5bd1e995, attacker+"\x00"+it.Key()))
	return int(h % uint64(len(it.Options)))
}

// uniform returns the log-probabilities of a uniform guess over n options.
func uniform(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = -math.Log(float64(n))
	}
	return out
}

// decide turns an attacker's scores for one item into a prediction: the
// highest score wins, ties go to the lowest of the tied options in a seeded
// rotation, and an item whose scores are all equal (nothing to go on) gets a
// seeded guess flagged as an abstention.
func decide(scores []float64, seed uint64, attacker string, it *harness.Item) Prediction {
	g := guess(seed, attacker, it)
	lo, hi := scores[0], scores[0]
	for _, v := range scores {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi-lo <= 1e-12 || math.IsNaN(hi-lo) {
		return Prediction{Choice: g, Scores: scores, Abstain: true}
	}
	best := -1
	n := len(scores)
	for k := 0; k < n; k++ {
		j := (g + k) % n
		if best < 0 || scores[j] > scores[best] {
			best = j
		}
	}
	return Prediction{Choice: best, Scores: scores}
}

// abstain is a seeded guess with uniform scores.
func abstain(seed uint64, attacker string, it *harness.Item) Prediction {
	return Prediction{Choice: guess(seed, attacker, it), Scores: uniform(len(it.Options)), Abstain: true}
}

// logNormalize turns nonnegative weights into log-probabilities.
func logNormalize(w []float64) []float64 {
	var s float64
	for _, v := range w {
		s += v
	}
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = math.Log(v / s)
	}
	return out
}

// normText is the form in which option texts are compared across items:
// lower case, letters and digits only, single spaces ("The table." and
// "the table" are the same option).
func normText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

// normOptions returns the normalised option texts of every item of s, by
// stream position.
func normOptions(s *Stream) [][]string {
	out := make([][]string, len(s.Items))
	for i, it := range s.Items {
		out[i] = make([]string, len(it.Options))
		for j, o := range it.Options {
			out[i][j] = normText(o)
		}
	}
	return out
}

// mapAnswer maps the gold answer of an earlier item (its normalised options
// src and gold index answer) onto the normalised options dst of another: to
// the option with the same text when there is one, else to the same letter
// when dst has that many options. It returns -1 when neither works.
func mapAnswer(src []string, answer int, dst []string) (choice int, byText bool) {
	want := src[answer]
	for j, o := range dst {
		if o == want {
			return j, true
		}
	}
	if answer < len(dst) {
		return answer, false
	}
	return -1, false
}
