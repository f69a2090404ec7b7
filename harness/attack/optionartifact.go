package attack

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// optionArtifact is the option-level learner: a conditional logit over
// features of each option text and its place among the others, never the
// question, learned prequentially within each benchmark (the option
// artifacts of Balepur et al., "Artifacts or Abduction", ACL 2024, and
// Video-Index 3.2). It finds, for example, that Social-IQ 2.0's correct option
// is often the uniquely longest one.
type optionArtifact struct {
	cfg   Config
	cache *Cache
	// only, when 1 or 2, answers with that learner alone (1: conditional
	// logit, 2: plain logistic regression), so that tests can compare the
	// combination with its parts; 0 combines them.
	only int
}

func (*optionArtifact) Name() string         { return "option-artifact" }
func (*optionArtifact) Level() harness.Level { return harness.LevelOption }
func (*optionArtifact) prequential()         {}

// The option features, in column order. Lengths come as raw log-length, the
// ratio to the item's mean and the rank, because a benchmark's writers bias
// relative length, not absolute length.
const (
	featLogChars = iota
	featCharRatio
	featWordRatio
	featLengthRank
	featLongest
	featShortest
	featMeanOverlap
	featMaxOverlap
	featSharedWords
	featMostShared
	featDuplicate
	featNegation
	featHedge
	featAbsolute
	featDigit
	featAboveNone
	featProperNouns
	featCommas
	featPos0 // positions 0..4 (layout is option-level access), then last
	featPos1
	featPos2
	featPos3
	featPos4
	featPosLast
	numOptionFeatures
)

func (a *optionArtifact) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	out := make([]Prediction, len(s.Items))
	for _, store := range benchmarkStores(s) {
		rows := 0
		for _, i := range store {
			rows += len(s.Items[i].Options)
		}
		feats := kernels.NewMatrix(rows, numOptionFeatures)
		off := make([]int32, len(store)+1)
		y := make([]int32, len(store))
		r := 0
		for k, i := range store {
			it := s.Items[i]
			off[k] = int32(r)
			y[k] = int32(it.Answer)
			copy(feats.Data[r*numOptionFeatures:], a.cache.optionFeatures(it.Options))
			r += len(it.Options)
		}
		off[len(store)] = int32(r)
		lp, err := kernels.PrequentialChoice(ctx, feats, off, y, a.cfg.ChoiceSGD.kernel())
		if err != nil {
			return nil, fmt.Errorf("option artifacts: %w", err)
		}
		// Two learners answer each item from the items before it: the
		// conditional logit over the features above, and a plain binary
		// logistic regression over per-item z-scores (optionlr.go). The
		// answer is that of the learner with more correct answers so far
		// (follow the leader, ties to the conditional logit), so the
		// attacker is about as strong as the better of the two on every
		// benchmark, and still never sees the gold of the item it answers.
		plain := newPlainLogit()
		var wins [2]int
		for k, i := range store {
			it := s.Items[i]
			pf := a.cache.plainOptionFeatures(it.Options)
			if k == 0 {
				out[i] = abstain(s.Seed, a.Name(), it)
				plain.learn(pf, it.Answer)
				continue
			}
			cand := [2]Prediction{
				decide(append([]float64(nil), lp[off[k]:off[k+1]]...), s.Seed, a.Name(), it),
				decide(plain.scores(pf), s.Seed, a.Name(), it),
			}
			lead := 0
			if wins[1] > wins[0] {
				lead = 1
			}
			if a.only > 0 {
				lead = a.only - 1
			}
			out[i] = cand[lead]
			for l, c := range cand {
				if c.Choice == it.Answer {
					wins[l]++
				}
			}
			plain.learn(pf, it.Answer)
			if k%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// optionFeatures writes the features of options into rows r.. of m.
func optionFeatures(m *kernels.Matrix, r int, options []string) {
	n := len(options)
	chars := make([]float64, n)
	words := make([][]string, n)
	sets := make([]map[string]bool, n)
	var meanChars, meanWords float64
	for j, o := range options {
		chars[j] = float64(len([]rune(strings.TrimSpace(o))))
		words[j] = strings.Fields(normText(o))
		sets[j] = map[string]bool{}
		for _, w := range words[j] {
			sets[j][w] = true
		}
		meanChars += chars[j] / float64(n)
		meanWords += float64(len(words[j])) / float64(n)
	}
	shared := make([]float64, n)
	for j, o := range options {
		f := m.Row(r + j)
		f[featLogChars] = float32(math.Log1p(chars[j]))
		if meanChars > 0 {
			f[featCharRatio] = float32(chars[j]/meanChars - 1)
		}
		if meanWords > 0 {
			f[featWordRatio] = float32(float64(len(words[j]))/meanWords - 1)
		}
		// Rank in [0, 1] from shortest to longest, ties sharing the mean rank.
		below, equal := 0, 0
		for k := range options {
			switch {
			case chars[k] < chars[j]:
				below++
			case chars[k] == chars[j]:
				equal++
			}
		}
		if n > 1 {
			f[featLengthRank] = float32((float64(below) + float64(equal-1)/2) / float64(n-1))
		}
		f[featLongest] = b2f(below == n-1 && equal == 1)
		f[featShortest] = b2f(below == 0 && equal == 1)
		var sumJ, maxJ float64
		inOthers := map[string]bool{}
		for k := range options {
			if k == j {
				continue
			}
			jac := jaccard(sets[j], sets[k])
			sumJ += jac
			maxJ = max(maxJ, jac)
			for w := range sets[k] {
				inOthers[w] = true
			}
			if normText(options[k]) == normText(o) {
				f[featDuplicate] = 1
			}
		}
		if n > 1 {
			f[featMeanOverlap] = float32(sumJ / float64(n-1))
		}
		f[featMaxOverlap] = float32(maxJ)
		if len(sets[j]) > 0 {
			c := 0
			for w := range sets[j] {
				if inOthers[w] {
					c++
				}
			}
			shared[j] = float64(c) / float64(len(sets[j]))
		}
		f[featSharedWords] = float32(shared[j])
		f[featNegation] = b2f(anyWord(words[j], negationWords) || strings.Contains(strings.ToLower(o), "n't"))
		f[featHedge] = b2f(anyWord(words[j], hedgeWords))
		f[featAbsolute] = b2f(anyWord(words[j], absoluteWords))
		f[featDigit] = b2f(strings.IndexFunc(o, unicode.IsDigit) >= 0)
		lo := strings.ToLower(o)
		f[featAboveNone] = b2f(strings.Contains(lo, "of the above") || strings.Contains(lo, "none of"))
		f[featProperNouns] = float32(properNouns(o))
		f[featCommas] = float32(strings.Count(o, ","))
		if j < 5 {
			f[featPos0+j] = 1
		}
		f[featPosLast] = b2f(j == n-1)
	}
	// The option that shares the most of its words with the others: writers
	// often build distractors by editing the answer, which leaves the answer
	// at the centre of the set.
	best, ties := -1, 0
	for j := range options {
		switch {
		case best < 0 || shared[j] > shared[best]:
			best, ties = j, 1
		case shared[j] == shared[best]:
			ties++
		}
	}
	if ties == 1 && shared[best] > 0 {
		m.Row(r + best)[featMostShared] = 1
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

func anyWord(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if set[w] {
			return true
		}
	}
	return false
}

// properNouns counts capitalised words after the first: a proxy for the
// specificity of an option (names, places, titles).
func properNouns(s string) int {
	c := 0
	for k, w := range strings.Fields(s) {
		if k == 0 {
			continue
		}
		r := []rune(w)
		if len(r) > 0 && unicode.IsUpper(r[0]) {
			c++
		}
	}
	return c
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Word lists after Balepur et al. (2024) and the hedging lexicon of Hyland
// (Hedging in Scientific Research Articles, 1998), cut to common forms.
var (
	negationWords = wordSet("not no never none nobody nothing neither nor without cannot nowhere")
	hedgeWords    = wordSet("may might maybe perhaps possibly probably likely seems seem appears appear could somewhat suggests")
	absoluteWords = wordSet("always never all every everyone everything only completely totally entirely must definitely certainly absolutely")
)
