package vidomni

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// How a pair whose caption has no Incorrect sentence is scored. Equation 2
// of the paper averages over all N pairs and does not say what 0/0 is; its
// models come from Hugging Face code, where scikit-learn's convention
// (zero_division = 0) is the usual one.
const (
	// NoIncorrectZero (the default) keeps every pair and reads 0/0 as 0:
	// a pair without Incorrect sentences counts 0 for precision, recall
	// and F1 whatever the verifier says, as equation 2 over all N pairs
	// gives with scikit-learn's default.
	NoIncorrectZero = "zero"
	// NoIncorrectOne keeps every pair and reads 0/0 as 1 (scikit-learn's
	// zero_division=1): a verifier that flags nothing on a caption
	// without hallucinations scores 1 there.
	NoIncorrectOne = "one"
	// NoIncorrectSkip leaves such pairs out of precision, recall and F1.
	NoIncorrectSkip = "skip"
)

// Options configure Score; the zero value scores as the paper does.
type Options struct {
	// Brackets are the duration brackets; nil means DefaultBrackets.
	Brackets []Bracket
	// NoIncorrect is NoIncorrectZero (""), NoIncorrectOne or
	// NoIncorrectSkip.
	NoIncorrect string
	// Self maps a verifier's name to the caption source it is, where the
	// names differ; otherwise a verifier is the source of the same name.
	Self map[string]string
	// Ensembles lists the verifier pairs to combine; nil means every
	// pair of verifiers.
	Ensembles [][2]string
	// AllowMissing scores a pair a verifier gave no verdict on as one it
	// judged and got wrong: nothing flagged, its Incorrect sentences all
	// missed, 0 for precision, recall and F1 (as an unparsed reply).
	// Without it a missing pair is a *MissingError: left out, it would
	// raise the verifier's mean over pairs (F1 100 against 66.7 with one
	// pair of three dropped), where equation 2 of the paper averages over
	// all N pairs.
	AllowMissing bool
}

// A MissingError says that a verifier gave no verdict on some labelled
// pairs that are scored (a Correct or Incorrect sentence) and
// Options.AllowMissing was not set.
type MissingError struct {
	Verifier string
	Pair     *Pair // the first pair, in the labels' order, without its verdict
	Count    int   // pairs the verifier left out
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("verifier %q gave no verdict on pair %q (%s:%d), the first of %d pairs it left out: every verifier must judge every labelled pair (the paper averages over all N pairs), or pass --allow-missing to score each missing pair 0 (its Incorrect sentences missed)",
		e.Verifier, e.Pair.ID, e.Pair.File, e.Pair.Line, e.Count)
}

// Metrics are precision, recall and F1 averaged over Pairs pairs, as
// fractions.
type Metrics struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Pairs     int     `json:"pairs"`
}

// VerifierScore is a verifier's overall result; Unparsed counts its raw
// replies that ParseReply could not read (each scored 0 for its pair).
type VerifierScore struct {
	Metrics
	Unparsed int `json:"unparsed"`
	// Missing counts the labelled pairs it gave no verdict on, each
	// scored 0 (Options.AllowMissing).
	Missing int `json:"missing"`
}

// CategoryRecall is the share of the Incorrect sentences of one error
// category that a verifier flagged (categories label positives only, so
// recall is the measure; paper, figure 8).
type CategoryRecall struct {
	Recall    float64 `json:"recall"`
	Sentences int     `json:"sentences"`
}

// MatrixCell is one verifier on the captions of one source; Self marks
// the diagonal, self-verification (paper, figure 12).
type MatrixCell struct {
	Metrics
	Self bool `json:"self"`
}

// Ensemble is the cross-model ensemble of two verifiers: a sentence is
// Incorrect if either says so (paper, appendix D.2, table 11), on the
// pairs both judged. Self holds, for each member that is also a caption
// source, its F1 alone on its own captions and the ensemble's there.
type Ensemble struct {
	Verifiers [2]string `json:"verifiers"`
	Metrics
	Self map[string]SelfGain `json:"self,omitempty"`
}

// SelfGain compares self-verification with the ensemble on one source's
// captions.
type SelfGain struct {
	SelfF1     float64 `json:"self_f1"`
	EnsembleF1 float64 `json:"ensemble_f1"`
	Pairs      int     `json:"pairs"`
}

// Scores is the result of Score. Its exported JSON fields are scores.json;
// the rest feeds the Markdown, HTML and Parquet outputs.
type Scores struct {
	Verifiers  map[string]VerifierScore             `json:"verifiers"`
	ByType     map[string]map[string]Metrics        `json:"by_type"`
	ByDuration map[string]map[string]Metrics        `json:"by_duration"`
	ByCategory map[string]map[string]CategoryRecall `json:"by_category"`
	Matrix     map[string]map[string]MatrixCell     `json:"matrix"`
	Ensembles  map[string]Ensemble                  `json:"ensembles"`

	names     []string // verifiers, sorted
	sources   []string // caption sources, sorted
	brackets  []Bracket
	policy    string
	grid      map[string]map[gridKey]Metrics // verifier -> (type, bracket)
	counts    labelCounts
	bySource  map[string]*sourceStats
	unparsed  []unparsedReply
	judged    map[string][]judgement // verifier -> in pair order, for the table
	pairsSeen map[string]int         // verifier -> pairs with a verdict
}

type gridKey struct {
	typ     int
	bracket string
}

// labelCounts describe the labelled set.
type labelCounts struct {
	pairs, sentences, incorrect, unknown int
	noIncorrect, onlyUnknown             int
}

// unparsedReply is one reply ParseReply refused.
type unparsedReply struct {
	verifier, pair, reason, where string
}

// judgement is one verifier's labels on one pair; labels is nil when its
// reply could not be parsed or, missing, it gave no verdict.
type judgement struct {
	pair    *Pair
	labels  []int8
	missing bool
}

// pairScore is precision, recall and F1 of one pair.
type pairScore struct {
	p, r, f1 float64
	counted  bool // false when the pair is left out (NoIncorrectSkip)
}

// score computes pair metrics: Incorrect is the positive class, Unknown
// sentences are left out, an unparsed reply (labels nil) scores 0.
func (o *Options) score(p *Pair, labels []int8) pairScore {
	var tp, fp, fn int
	for i, s := range p.Sentences {
		if s.Label == Unknown {
			continue
		}
		pos := s.Label == Incorrect
		flagged := labels != nil && labels[i] == 1
		switch {
		case pos && flagged:
			tp++
		case !pos && flagged:
			fp++
		case pos && !flagged:
			fn++
		}
	}
	return o.fromCounts(tp, fp, fn, p.anyKnown(), labels != nil)
}

// fromCounts is a pair's score from its counts: known says whether the
// pair has a Correct or Incorrect sentence, parsed whether the verifier's
// labels were read.
func (o *Options) fromCounts(tp, fp, fn int, known, parsed bool) pairScore {
	if !known {
		return pairScore{} // only Unknown sentences: nothing to score
	}
	if tp+fn == 0 && o.NoIncorrect == NoIncorrectSkip {
		return pairScore{}
	}
	if !parsed {
		return pairScore{counted: true}
	}
	zd := 0.0
	if o.NoIncorrect == NoIncorrectOne {
		zd = 1
	}
	div := func(a, b int) float64 {
		if b == 0 {
			return zd
		}
		return float64(a) / float64(b)
	}
	s := pairScore{p: div(tp, tp+fp), r: div(tp, tp+fn), counted: true}
	if s.p+s.r > 0 {
		s.f1 = 2 * s.p * s.r / (s.p + s.r)
	} else if tp+fp+fn == 0 {
		s.f1 = zd
	}
	return s
}

// mean accumulates pair scores in order.
type mean struct {
	p, r, f1 float64
	n        int
}

func (m *mean) add(s pairScore) {
	if s.counted {
		m.p, m.r, m.f1, m.n = m.p+s.p, m.r+s.r, m.f1+s.f1, m.n+1
	}
}

func (m mean) metrics() Metrics {
	if m.n == 0 {
		return Metrics{}
	}
	n := float64(m.n)
	return Metrics{Precision: m.p / n, Recall: m.r / n, F1: m.f1 / n, Pairs: m.n}
}

// Score scores every verifier's verdicts against the labelled pairs.
// Verdict errors (a pair not in the labels, a verifier's second verdict on
// a pair, labels that do not match the caption's sentences) are
// *harness.ParseError values naming the verdicts file, line and field.
// A labelled pair without a verdict from a verifier (one with a Correct or
// Incorrect sentence: only those are scored) is a *MissingError
// unless opt.AllowMissing, which scores it 0 for that verifier and counts
// it in VerifierScore.Missing.
func Score(pairs []*Pair, verdicts []*Verdict, opt Options) (*Scores, error) {
	o := opt
	switch o.NoIncorrect {
	case "":
		o.NoIncorrect = NoIncorrectZero
	case NoIncorrectZero, NoIncorrectOne, NoIncorrectSkip:
	default:
		return nil, fmt.Errorf("no-incorrect policy %q: want zero, one or skip", o.NoIncorrect)
	}
	if o.Brackets == nil {
		o.Brackets, _ = ParseBrackets(DefaultBrackets)
	}
	s := &Scores{
		Verifiers: map[string]VerifierScore{}, ByType: map[string]map[string]Metrics{},
		ByDuration: map[string]map[string]Metrics{}, ByCategory: map[string]map[string]CategoryRecall{},
		Matrix: map[string]map[string]MatrixCell{}, Ensembles: map[string]Ensemble{},
		brackets: o.Brackets, policy: o.NoIncorrect, grid: map[string]map[gridKey]Metrics{}, pairsSeen: map[string]int{},
	}
	byID := map[string]*Pair{}
	pairIndex := map[string]int{}
	sources := map[string]bool{}
	for i, p := range pairs {
		if p.Duration > 0 {
			p.Bracket = bracketOf(o.Brackets, p.Duration)
		} else if !bracketNamed(o.Brackets, p.Bracket) {
			return nil, &harness.ParseError{File: p.File, Line: p.Line, Field: "duration",
				Err: fmt.Errorf("%w: bracket %q is not one of %s", harness.ErrBadValue, p.Bracket, formatBrackets(o.Brackets))}
		}
		byID[p.ID], pairIndex[p.ID] = p, i
		sources[p.Source] = true
		s.counts.add(p)
		s.addSource(p)
	}
	s.sources = sortedKeys(sources)

	// Resolve every verdict to labels, in the labels' pair order.
	judged := map[string][]judgement{} // verifier -> in pair order
	seen := map[[2]string]*Verdict{}
	for _, v := range verdicts {
		p, ok := byID[v.Pair]
		if !ok {
			return nil, &harness.ParseError{File: v.File, Line: v.Line, Field: "pair", Err: fmt.Errorf("%w: %q is not in the labels", harness.ErrUnknownItem, v.Pair)}
		}
		key := [2]string{v.Verifier, v.Pair}
		if first, dup := seen[key]; dup {
			return nil, &harness.ParseError{File: v.File, Line: v.Line, Field: "pair",
				Err: fmt.Errorf("%w: verifier %q already judged pair %q at %s:%d", harness.ErrDuplicateID, v.Verifier, v.Pair, first.File, first.Line)}
		}
		seen[key] = v
		j := judgement{pair: p}
		if v.Reply != nil {
			labels, err := ParseReply(*v.Reply, len(p.Sentences))
			if err != nil {
				s.unparsed = append(s.unparsed, unparsedReply{v.Verifier, v.Pair, strings.TrimPrefix(err.Error(), ErrUnparsed.Error()+": "), fmt.Sprintf("%s:%d", v.File, v.Line)})
			}
			j.labels = labels
		} else {
			if len(v.Labels) != len(p.Sentences) {
				return nil, &harness.ParseError{File: v.File, Line: v.Line, Field: "labels",
					Err: fmt.Errorf("%w: %d labels for the %d sentences of pair %q", harness.ErrBadValue, len(v.Labels), len(p.Sentences), v.Pair)}
			}
			j.labels = v.Labels
		}
		judged[v.Verifier] = append(judged[v.Verifier], j)
	}
	for name, js := range judged {
		s.names = append(s.names, name)
		s.pairsSeen[name] = len(js)
	}
	sort.Strings(s.names)
	if len(s.names) == 0 {
		return nil, errors.New("no verdicts to score")
	}
	missing := map[string]int{}
	for _, name := range s.names {
		js := judged[name]
		if len(js) == len(pairs) {
			continue
		}
		have := make(map[string]bool, len(js))
		for _, j := range js {
			have[j.pair.ID] = true
		}
		var first *Pair
		for _, p := range pairs {
			// A pair with only Unknown sentences is scored for no one.
			if !have[p.ID] && p.anyKnown() {
				if first == nil {
					first = p
				}
				missing[name]++
				js = append(js, judgement{pair: p, missing: true})
			}
		}
		if first == nil {
			continue
		}
		if !o.AllowMissing {
			return nil, &MissingError{Verifier: name, Pair: first, Count: missing[name]}
		}
		judged[name] = js
	}
	for _, js := range judged {
		sort.SliceStable(js, func(a, b int) bool { return pairIndex[js[a].pair.ID] < pairIndex[js[b].pair.ID] })
	}
	s.judged = judged
	unparsed := map[string]int{}
	for _, u := range s.unparsed {
		unparsed[u.verifier]++
	}

	for _, name := range s.names {
		js := judged[name]
		var all mean
		byType, byBracket, bySource := map[int]*mean{}, map[string]*mean{}, map[string]*mean{}
		grid := map[gridKey]*mean{}
		hits, totals := map[string]int{}, map[string]int{}
		for _, j := range js {
			ps := o.score(j.pair, j.labels)
			all.add(ps)
			acc(byType, j.pair.Type).add(ps)
			acc(byBracket, j.pair.Bracket).add(ps)
			acc(bySource, j.pair.Source).add(ps)
			acc(grid, gridKey{j.pair.Type, j.pair.Bracket}).add(ps)
			for i, st := range j.pair.Sentences {
				if st.Label != Incorrect {
					continue
				}
				for _, c := range st.Categories {
					totals[c]++
					if j.labels != nil && j.labels[i] == 1 {
						hits[c]++
					}
				}
			}
		}
		s.Verifiers[name] = VerifierScore{Metrics: all.metrics(), Unparsed: unparsed[name], Missing: missing[name]}
		s.ByType[name] = metricsOf(byType, func(t int) string { return strconv.Itoa(t) })
		s.ByDuration[name] = metricsOf(byBracket, func(b string) string { return b })
		cats := map[string]CategoryRecall{}
		for c, n := range totals {
			cats[c] = CategoryRecall{Recall: float64(hits[c]) / float64(n), Sentences: n}
		}
		s.ByCategory[name] = cats
		row := map[string]MatrixCell{}
		for src, m := range bySource {
			if m.n > 0 {
				row[src] = MatrixCell{Metrics: m.metrics(), Self: o.sourceOf(name) == src}
			}
		}
		s.Matrix[name] = row
		g := map[gridKey]Metrics{}
		for k, m := range grid {
			if m.n > 0 {
				g[k] = m.metrics()
			}
		}
		s.grid[name] = g
	}

	ens := o.Ensembles
	if ens == nil {
		for a := 0; a < len(s.names); a++ {
			for b := a + 1; b < len(s.names); b++ {
				ens = append(ens, [2]string{s.names[a], s.names[b]})
			}
		}
	}
	for _, e := range ens {
		for _, name := range e {
			if _, ok := judged[name]; !ok {
				return nil, fmt.Errorf("ensemble %s+%s: no verdicts from verifier %q", e[0], e[1], name)
			}
		}
		if e[0] == e[1] {
			return nil, fmt.Errorf("ensemble %s+%s: a verifier with itself", e[0], e[1])
		}
		s.Ensembles[e[0]+"+"+e[1]] = o.ensemble(e, judged[e[0]], judged[e[1]])
	}
	return s, nil
}

// ensemble ORs two verifiers' labels on the pairs both judged (an unparsed
// reply flags nothing, so the other verifier's labels stand).
func (o *Options) ensemble(names [2]string, a, b []judgement) Ensemble {
	bLabels, bJudged := map[string][]int8{}, map[string]bool{}
	for _, j := range b {
		bLabels[j.pair.ID], bJudged[j.pair.ID] = j.labels, true
	}
	var all mean
	self := map[string]*[2]mean{} // member -> (alone, ensemble) on its own captions
	for _, j := range a {
		if !bJudged[j.pair.ID] {
			continue
		}
		lb := bLabels[j.pair.ID]
		var or []int8 // nil (scored 0) only when neither reply was read
		if j.labels != nil || lb != nil {
			or = make([]int8, len(j.pair.Sentences))
			for i := range or {
				if (j.labels != nil && j.labels[i] == 1) || (lb != nil && lb[i] == 1) {
					or[i] = 1
				}
			}
		}
		ens := o.score(j.pair, or)
		all.add(ens)
		for k, member := range names {
			if o.sourceOf(member) != j.pair.Source {
				continue
			}
			alone := j.labels
			if k == 1 {
				alone = lb
			}
			m := self[member]
			if m == nil {
				m = &[2]mean{}
				self[member] = m
			}
			m[0].add(o.score(j.pair, alone))
			m[1].add(ens)
		}
	}
	e := Ensemble{Verifiers: names, Metrics: all.metrics()}
	for member, m := range self {
		if m[0].n == 0 {
			continue
		}
		if e.Self == nil {
			e.Self = map[string]SelfGain{}
		}
		e.Self[member] = SelfGain{SelfF1: m[0].metrics().F1, EnsembleF1: m[1].metrics().F1, Pairs: m[0].n}
	}
	return e
}

// sourceOf is the caption source a verifier is.
func (o *Options) sourceOf(verifier string) string {
	if s, ok := o.Self[verifier]; ok {
		return s
	}
	return verifier
}

func acc[K comparable](m map[K]*mean, k K) *mean {
	x := m[k]
	if x == nil {
		x = &mean{}
		m[k] = x
	}
	return x
}

func metricsOf[K comparable](m map[K]*mean, key func(K) string) map[string]Metrics {
	out := map[string]Metrics{}
	for k, x := range m {
		if x.n > 0 {
			out[key(k)] = x.metrics()
		}
	}
	return out
}

func (c *labelCounts) add(p *Pair) {
	c.pairs++
	incorrect, known := 0, 0
	for _, s := range p.Sentences {
		c.sentences++
		switch s.Label {
		case Incorrect:
			c.incorrect++
			incorrect++
			known++
		case Unknown:
			c.unknown++
		default:
			known++
		}
	}
	switch {
	case known == 0:
		c.onlyUnknown++
	case incorrect == 0:
		c.noIncorrect++
	}
}

// anyKnown reports whether some sentence is Correct or Incorrect.
func (p *Pair) anyKnown() bool {
	for _, s := range p.Sentences {
		if s.Label != Unknown {
			return true
		}
	}
	return false
}

// sourceStats describe one caption source's captions as the paper's
// table 1 does: how many pairs hold at least one Incorrect sentence (the
// Video Incorrect Rate) and the mean share of Incorrect sentences per
// caption, Unknown sentences left out.
type sourceStats struct {
	pairs, sentences, withIncorrect int
	shareSum                        float64
}

func (s *Scores) addSource(p *Pair) {
	if s.bySource == nil {
		s.bySource = map[string]*sourceStats{}
	}
	st := s.bySource[p.Source]
	if st == nil {
		st = &sourceStats{}
		s.bySource[p.Source] = st
	}
	known, incorrect := 0, 0
	for _, x := range p.Sentences {
		switch x.Label {
		case Incorrect:
			incorrect++
			known++
		case Correct:
			known++
		}
	}
	if known == 0 {
		return
	}
	st.pairs++
	st.sentences += known
	if incorrect > 0 {
		st.withIncorrect++
	}
	st.shareSum += float64(incorrect) / float64(known)
}

func bracketNamed(bs []Bracket, name string) bool {
	for _, b := range bs {
		if b.Name == name {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
