package attack

import (
	"context"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// lexicalMatch is the text-level blind reader without a model: it scores each
// option by how much of its wording the question repeats (content words, with
// a crude suffix stemmer, plus character trigrams) and picks the best. It
// learns nothing, so it answers every item on its own and runs on one order.
type lexicalMatch struct{}

func (*lexicalMatch) Name() string         { return "question-match" }
func (*lexicalMatch) Level() harness.Level { return harness.LevelText }

// matchTemperature turns match scores into log-probabilities: one shared
// content word (score about 0.5 to 1) gives odds of e^2 to e^4 against an
// option sharing nothing.
const matchTemperature = 4

func (a *lexicalMatch) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	out := make([]Prediction, len(s.Items))
	for i, it := range s.Items {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = decide(matchScores(it), s.Seed, a.Name(), it)
	}
	return out, nil
}

// matchScores returns log-softmax(matchTemperature * score) over the options,
// where score is the number of the option's content words the question
// contains, divided by the square root of the option's content word count
// (so long options do not win by size alone), plus the Dice overlap of
// character trigrams.
func matchScores(it *harness.Item) []float64 {
	qw := contentWords(it.Question)
	qset := make(map[string]bool, len(qw))
	for _, w := range qw {
		qset[w] = true
	}
	qg := trigrams(normText(it.Question))
	sc := make([]float64, len(it.Options))
	for j, o := range it.Options {
		ow := contentWords(o)
		hit := 0
		for _, w := range ow {
			if qset[w] {
				hit++
			}
		}
		var v float64
		if len(ow) > 0 {
			v = float64(hit) / math.Sqrt(float64(len(ow)))
		}
		v += dice(qg, trigrams(normText(o)))
		sc[j] = matchTemperature * v
	}
	return logSoftmax(sc)
}

func logSoftmax(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	ls := m + math.Log(s)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v - ls
	}
	return out
}

// contentWords lists the words of s that are not stop words, each stemmed.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(normText(s)) {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips the commonest English inflections so that "tidied", "tidy" and
// "tidies" meet; it is deliberately cruder than Porter's stemmer.
func stem(w string) string {
	for _, suf := range []string{"ing", "ied", "ies", "ed", "es", "s", "y"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

func trigrams(s string) map[string]int {
	p := " " + s + " "
	m := make(map[string]int, len(p))
	for i := 0; i+3 <= len(p); i++ {
		m[p[i:i+3]]++
	}
	return m
}

// dice is 2|A∩B|/(|A|+|B|) over trigram multisets.
func dice(a, b map[string]int) float64 {
	var inter, na, nb int
	for g, c := range a {
		na += c
		inter += min(c, b[g])
	}
	for _, c := range b {
		nb += c
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(inter) / float64(na+nb)
}

// stopWords are function words that say nothing about which option is right
// (a short list in the spirit of the SMART stop list, Salton 1971).
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with from as into onto
		is are was were be been being am do does did doing has have had having
		this that these those it its he she they them his her their him we you your i me my our us
		what which who whom whose when where why how there here than then so such
		not no yes very just also too can could will would should may might must shall
		about after before during while up down out over under again further once
		all any both each few more most other some own same only`) {
		m[w] = true
	}
	return m
}()
