package attack

import (
	"math"
	"strings"
	"unicode"
)

// The per-option features of the plain option learner, after the held-out
// audit of issue 10: continuous ones z-scored within the item, so that "the
// longest" or "the most central" option reads the same on an item of short
// options as on one of long ones.
const (
	plainCharZ = iota
	plainLongest
	plainShortest
	plainWordZ
	plainJaccardZ // mean Jaccard overlap with the other options
	plainSharedZ  // mean fraction of its words found in the other options
	plainNegation
	plainAbsolute
	plainHedge
	plainDigit
	plainFirst
	plainLast
	plainBias
	numPlainFeatures
)

// plainFeatures returns one feature row per option.
func plainFeatures(options []string) [][]float64 {
	n := len(options)
	chars := make([]float64, n)
	nwords := make([]float64, n)
	words := make([][]string, n)
	sets := make([]map[string]bool, n)
	for j, o := range options {
		chars[j] = float64(len([]rune(strings.TrimSpace(o))))
		words[j] = strings.Fields(normText(o))
		nwords[j] = float64(len(words[j]))
		sets[j] = wordSet(strings.Join(words[j], " "))
	}
	jac := make([]float64, n)
	shared := make([]float64, n)
	for j := range options {
		var sj, sf float64
		for k := range options {
			if k == j {
				continue
			}
			sj += jaccard(sets[j], sets[k])
			if len(sets[j]) > 0 {
				c := 0
				for w := range sets[j] {
					if sets[k][w] {
						c++
					}
				}
				sf += float64(c) / float64(len(sets[j]))
			}
		}
		if n > 1 {
			jac[j], shared[j] = sj/float64(n-1), sf/float64(n-1)
		}
	}
	charZ, wordZ, jacZ, sharedZ := zscores(chars), zscores(nwords), zscores(jac), zscores(shared)
	lo, hi := chars[0], chars[0]
	for _, c := range chars {
		lo, hi = min(lo, c), max(hi, c)
	}
	count := func(v float64) int {
		c := 0
		for _, x := range chars {
			if x == v {
				c++
			}
		}
		return c
	}
	rows := make([][]float64, n)
	for j, o := range options {
		f := make([]float64, numPlainFeatures)
		f[plainCharZ], f[plainWordZ], f[plainJaccardZ], f[plainSharedZ] = charZ[j], wordZ[j], jacZ[j], sharedZ[j]
		f[plainLongest] = float64(b2f(chars[j] == hi && hi > lo && count(hi) == 1))
		f[plainShortest] = float64(b2f(chars[j] == lo && hi > lo && count(lo) == 1))
		f[plainNegation] = float64(b2f(anyWord(words[j], negationWords) || strings.Contains(strings.ToLower(o), "n't")))
		f[plainAbsolute] = float64(b2f(anyWord(words[j], absoluteWords)))
		f[plainHedge] = float64(b2f(anyWord(words[j], hedgeWords)))
		f[plainDigit] = float64(b2f(strings.IndexFunc(o, unicode.IsDigit) >= 0))
		f[plainFirst] = float64(b2f(j == 0))
		f[plainLast] = float64(b2f(j == n-1))
		f[plainBias] = 1
		rows[j] = f
	}
	return rows
}

// zscores standardises xs by their own mean and standard deviation; all
// zeros when they are all equal.
func zscores(xs []float64) []float64 {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(v / float64(len(xs)))
	out := make([]float64, len(xs))
	if sd < 1e-12 {
		return out
	}
	for i, x := range xs {
		out[i] = (x - mean) / sd
	}
	return out
}

// plainLogit is a binary logistic regression over options (is this option
// the gold one?), learned online by SGD: the plain learner the audit
// compared against. Every option of an item is scored before any is learned,
// so the item's own gold never reaches its scores.
type plainLogit struct {
	w, avg []float64
	steps  float64
}

// The plain learner's step and penalty: features are z-scores and
// indicators of order one, so a step of 0.05 moves a weight by about as much
// per item as one option's evidence; weights are averaged (Polyak) to damp
// the noise of single items.
const (
	plainEta   = 0.05
	plainAlpha = 1e-4
)

func newPlainLogit() *plainLogit {
	return &plainLogit{w: make([]float64, numPlainFeatures), avg: make([]float64, numPlainFeatures)}
}

// scores returns log-softmax of the options' logits under the averaged
// weights: the choice is the option most likely to be gold.
func (m *plainLogit) scores(rows [][]float64) []float64 {
	lg := make([]float64, len(rows))
	for j, f := range rows {
		for k, v := range f {
			lg[j] += m.avg[k] * v
		}
	}
	mx := lg[0]
	for _, v := range lg {
		mx = max(mx, v)
	}
	var s float64
	for _, v := range lg {
		s += math.Exp(v - mx)
	}
	l := mx + math.Log(s)
	for j := range lg {
		lg[j] -= l
	}
	return lg
}

// learn takes one SGD step per option of an item whose gold is gold.
func (m *plainLogit) learn(rows [][]float64, gold int) {
	for j, f := range rows {
		var z float64
		for k, v := range f {
			z += m.w[k] * v
		}
		p := 1 / (1 + math.Exp(-z))
		g := p
		if j == gold {
			g--
		}
		for k, v := range f {
			m.w[k] -= plainEta * (g*v + plainAlpha*m.w[k])
		}
	}
	m.steps++
	for k := range m.avg {
		m.avg[k] += (m.w[k] - m.avg[k]) / m.steps
	}
}
