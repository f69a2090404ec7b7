package metrics

import (
	"cmp"
	"math"
	"slices"
)

// Alpha is the family-wise error rate of the significance test: 0.05 over
// the attackers of one benchmark, controlled by Holm's step-down procedure
// (issue 20, point 4; DESIGN.md, "The attack pyramid").
const Alpha = 0.05

// tailCut is the relative mass below which a binomial's terms are dropped
// before they are convolved: e^-110, about 1.7e-48. Dropping them changes a
// tail probability by less than the number of distinct chances times 1e-47,
// far below float64's resolution of any p-value near Alpha; a tail that lies
// wholly beyond the kept terms is reported as 0.
const tailCut = -110.0

// PoissonBinomialUpperTail returns P(X >= k) for X the number of successes
// of independent trials with success probabilities p: the exact one-sided
// p-value of k correct answers when item i is answered at its own chance
// p[i] = 1/k_i (Video-Index's question is whether an attacker beats
// chance; with mixed option counts the null is Poisson-binomial, not
// binomial).
//
// The trials are grouped by probability (a benchmark has at most a few
// distinct option counts): each group's count is an exact binomial, whose
// terms are computed in log space and kept within e^-110 of its mode, and
// the groups are convolved. The cost is about the square of the kept width,
// some tens of standard deviations, not of n, so 60,000 items with three
// option counts take milliseconds (BenchmarkPoissonBinomialUpperTail).
// Probabilities outside [0, 1] or NaN are an error of the caller: they are
// clamped to [0, 1].
func PoissonBinomialUpperTail(p []float64, k int) float64 {
	if k <= 0 {
		return 1
	}
	if k > len(p) {
		return 0
	}
	groups := map[float64]int{}
	for _, q := range p {
		if !(q > 0) {
			q = 0
		} else if q > 1 {
			q = 1
		}
		groups[q]++
	}
	probs := make([]float64, 0, len(groups))
	for q := range groups {
		probs = append(probs, q)
	}
	slices.Sort(probs) // a fixed order of convolution: the same bits every run
	acc := []float64{1}
	lo := 0 // acc[j] is P(sum = lo + j)
	for _, q := range probs {
		n := groups[q]
		b, blo := binomialTerms(n, q)
		acc = convolve(acc, b)
		lo += blo
		acc, lo = trim(acc, lo)
	}
	var tail float64
	for j := len(acc) - 1; j >= 0 && lo+j >= k; j-- {
		tail += acc[j]
	}
	return math.Min(tail, 1)
}

// binomialTerms returns the terms of Binomial(n, q) within e^tailCut of the
// largest, and the count of the first of them.
func binomialTerms(n int, q float64) ([]float64, int) {
	switch q {
	case 0:
		return []float64{1}, 0
	case 1:
		return []float64{1}, n
	}
	lq, lr := math.Log(q), math.Log1p(-q)
	ln, _ := math.Lgamma(float64(n) + 1)
	logTerm := func(j int) float64 {
		a, _ := math.Lgamma(float64(j) + 1)
		b, _ := math.Lgamma(float64(n-j) + 1)
		return ln - a - b + float64(j)*lq + float64(n-j)*lr
	}
	mode := int(math.Floor(float64(n+1) * q))
	mode = min(max(mode, 0), n)
	top := logTerm(mode)
	first, last := mode, mode
	for first > 0 && logTerm(first-1)-top > tailCut {
		first--
	}
	for last < n && logTerm(last+1)-top > tailCut {
		last++
	}
	out := make([]float64, last-first+1)
	for j := range out {
		out[j] = math.Exp(logTerm(first + j))
	}
	return out, first
}

// convolve returns the distribution of the sum of two independent counts
// given by their terms.
func convolve(a, b []float64) []float64 {
	out := make([]float64, len(a)+len(b)-1)
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			out[i+j] += x * y
		}
	}
	return out
}

// trim drops the leading and trailing terms of a distribution that are
// below e^tailCut of its largest, keeping lo in step.
func trim(a []float64, lo int) ([]float64, int) {
	top := slices.Max(a)
	cut := top * math.Exp(tailCut)
	first, last := 0, len(a)-1
	for first < last && a[first] < cut {
		first++
	}
	for last > first && a[last] < cut {
		last--
	}
	return a[first : last+1], lo + first
}

// Holm applies Holm's step-down procedure to the p-values p at family-wise
// level alpha: the smallest p-value is compared with alpha/m, the next with
// alpha/(m-1), and so on, stopping at the first that fails; it reports which
// hypotheses are rejected. Ties keep their input order, so the answer does
// not depend on how the caller's sort broke them. A NaN p-value is never
// rejected.
func Holm(p []float64, alpha float64) []bool {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		if math.IsNaN(p[i]) {
			return math.Inf(1)
		}
		return p[i]
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	out := make([]bool, m)
	for r, i := range idx {
		if !(p[i] <= alpha/float64(m-r)) {
			break
		}
		out[i] = true
	}
	return out
}
