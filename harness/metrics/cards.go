package metrics

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/solve"
	"github.com/vidscreen/vidscreen/kernels"
)

// significanceZ is the one-sided 1% normal quantile of the papers' own
// threshold 2.326 * sqrt(c(1-c)/n) (the Video-Index authors' levels.py),
// kept on the card beside the exact test for comparison with the published
// tables.
const significanceZ = 2.326

// paperMinN is the fewest items an attacker must share with the reference
// for its paper-style margin: the authors' levels.py drops an attacker with
// fewer than 30.
const paperMinN = 30

// digits is the rounding of every float in a card: enough for any figure a
// person reads, few enough that the last bits of a sum never reach the JSON.
const digits = 1e6

func round(x float64) float64 { return math.Round(x*digits) / digits }

func roundPtr(x float64) *float64 { r := round(x); return &r }

// attackerInfo is what Cards needs to know of a configured attacker.
type attackerInfo struct {
	name        string
	level       harness.Level
	prequential bool
	orders      int
	// rule is when an answer of the attacker solves an item (package
	// solve): Confident for the model readers, Correct otherwise.
	rule solve.Rule
	// screening is true for a screening step only (attack.ScreeningOnly):
	// no level's eps counts it.
	screening bool
	// crossPool marks a cross-pool attacker (attack.CrossPool): reported
	// beside, in no level's eps.
	crossPool bool
	// diagnostic marks a further model of a Video-Oasis test
	// (attack.DiagnosticOnly): reported, in no eps and no Holm family.
	diagnostic bool
}

func configured(cfg attack.Config) []attackerInfo {
	var out []attackerInfo
	for _, a := range attack.Attackers(cfg) {
		rule := solve.Correct
		if attack.ScoresLetters(a) {
			rule = solve.Confident
		}
		out = append(out, attackerInfo{a.Name(), a.Level(), attack.Prequential(a), attack.Variants(a, cfg), rule, attack.ScreeningOnly(a), attack.CrossPool(a), attack.DiagnosticOnly(a)})
	}
	return out
}

// scored is one outcome reduced to what the metrics read. It is kept small:
// the card stage holds one per outcome of the benchmark it is computing.
type scored struct {
	margin  float64
	item    int32
	pos     int32
	choice  uint8
	scored  bool
	correct bool
	abstain bool
	floored bool
}

// Cards computes one card per benchmark of items, sorted by benchmark name.
// outcomes may come in any order; an attacker or item without outcomes is
// left out of the figures that need it. ref may be nil (no reference model)
// and dup may be nil (no near-duplicate analysis). An outcome naming an
// unknown attacker, an item out of range or scores of the wrong length is an
// error: it means the records and the configuration do not match.
//
// A card depends only on its own benchmark's items and outcomes (and the
// seed), never on which other benchmarks share the run, apart from the
// fields that compare benchmarks (cross-benchmark duplicates and flows,
// shared videos). CardsByBenchmark computes the same cards from one
// benchmark's outcomes at a time.
func Cards(ctx context.Context, items []*harness.Item, outcomes []Outcome, ref Reference, dup *dups.Result, cfg Config) ([]Card, error) {
	atts := configured(cfg.Attack)
	col := columns(atts)
	names, bench := benchmarkIndex(items)
	// groups[attacker][benchmark][variant] lists the scored outcomes.
	groups := make([][]map[int][]scored, len(atts))
	for k := range groups {
		groups[k] = make([]map[int][]scored, len(names))
		for b := range groups[k] {
			groups[k][b] = map[int][]scored{}
		}
	}
	for _, o := range outcomes {
		k, ok := col[o.Attacker]
		if !ok {
			return nil, fmt.Errorf("cards: outcome of unknown attacker %q", o.Attacker)
		}
		s, err := score(items, o)
		if err != nil {
			return nil, fmt.Errorf("cards: %w", err)
		}
		b := bench[o.Item]
		groups[k][b][o.Variant] = append(groups[k][b][o.Variant], s)
	}
	members := membersOf(len(names), bench)
	cards := make([]Card, len(names))
	byAttacker := make([]map[int][]scored, len(atts))
	for b, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for k := range atts {
			byAttacker[k] = groups[k][b]
		}
		c, err := benchmarkCard(ctx, items, atts, name, members[b], byAttacker, ref, dup, cfg)
		if err != nil {
			return nil, err
		}
		cards[b] = c
	}
	return cards, nil
}

// columns maps each configured attacker's name to its column.
func columns(atts []attackerInfo) map[string]int {
	col := map[string]int{}
	for k, a := range atts {
		col[a.name] = k
	}
	return col
}

// membersOf lists the items of each of n benchmarks, ascending, from each
// item's benchmark index.
func membersOf(n int, bench []int) [][]int {
	out := make([][]int, n)
	for i, b := range bench {
		out[b] = append(out[b], i)
	}
	return out
}

// benchmarkCard computes the card of the benchmark name, whose items are
// members, from its scored outcomes per attacker (in column order) and
// variant.
func benchmarkCard(ctx context.Context, items []*harness.Item, atts []attackerInfo, name string, members []int, byAttacker []map[int][]scored, ref Reference, dup *dups.Result, cfg Config) (Card, error) {
	c := Card{Benchmark: name, N: len(members), Embedder: cfg.Embedder}
	if s, ok := cfg.Samples[name]; ok {
		c.Sample = &s
	}
	chance := meanChance(items, members)
	c.Chance = round(chance)
	c.Significance = round(significance(chance, len(members)))
	var all [][]scored // per attacker, its scored outcomes on this benchmark
	for k, a := range atts {
		r, ss, ok, err := attackerResult(ctx, items, a, byAttacker[k], cfg, name, len(members))
		if err != nil {
			return Card{}, fmt.Errorf("cards: %s: %s: %w", name, a.name, err)
		}
		if !ok {
			continue
		}
		c.Attackers = append(c.Attackers, r)
		all = append(all, ss)
	}
	correct(c.Attackers)
	c.Levels, c.LevelsNotRun = levels(c.Attackers, cfg.Attack.Levels)
	notRunForFailures(&c, items, members, cfg.Failures)
	c.Failures = map[string]int{}
	for _, l := range harness.Levels() {
		if slices.Contains(cfg.Attack.Levels, l) && c.LevelsNotRun[l.String()] == "" {
			c.LevelsRun = append(c.LevelsRun, l)
		}
	}
	withALC(&c)
	c.Tasks = breakdowns(items, members, c.Attackers, all, cfg.Attack.Levels, func(it *harness.Item) string { return it.Task })
	c.Groups = breakdowns(items, members, c.Attackers, all, cfg.Attack.Levels, func(it *harness.Item) string { return it.Group })
	c.Durations = byDurationCategory(breakdowns(items, members, c.Attackers, all, cfg.Attack.Levels, func(it *harness.Item) string { return it.DurationCategory }))
	c.DataQuality = dataQuality(items, members)
	withReference(&c, items, members, all, ref, dup, cfg)
	withDuplicates(&c, dup)
	return c, nil
}

func meanChance(items []*harness.Item, members []int) float64 {
	var chance float64
	for _, i := range members {
		chance += items[i].Chance()
	}
	return chance / float64(len(members))
}

// withALC sets the card's ALC, learning curve and their attacker: those of
// the pool attacker with the largest final-stage margin (001, tables 14-15).
func withALC(c *Card) {
	var best *AttackerResult
	for k := range c.Attackers {
		a := &c.Attackers[k]
		if a.Level == harness.LevelPool && a.ALC != nil && (best == nil || a.Margin > best.Margin) {
			best = a
		}
	}
	if best != nil {
		c.ALCAttacker, c.LearningCurve, c.ALC = best.Name, best.LearningCurve, best.ALC
	}
}

// breakdowns splits a card by key (the items' task or group): for each value,
// n, chance and eps per level over the scored outcomes of its items. A card
// whose items all share one value (or none) gets no breakdown.
func breakdowns(items []*harness.Item, members []int, rs []AttackerResult, ss [][]scored, ran []harness.Level, key func(*harness.Item) string) []Breakdown {
	var names []string
	for _, i := range members {
		if k := key(items[i]); !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	if len(names) < 2 {
		return nil
	}
	slices.Sort(names)
	out := make([]Breakdown, len(names))
	for x, name := range names {
		var sub []int
		for _, i := range members {
			if key(items[i]) == name {
				sub = append(sub, i)
			}
		}
		chance := meanChance(items, sub)
		bd := Breakdown{Name: name, N: len(sub), Chance: round(chance), Significance: round(significance(chance, len(sub)))}
		part := make([]AttackerResult, len(rs))
		for k, r := range rs {
			var ok, ch float64
			seen := map[int32]bool{}
			var t exactTest
			for _, s := range ss[k] {
				if key(items[s.item]) != name {
					continue
				}
				ok += credit(items, s)
				ch += items[s.item].Chance()
				seen[s.item] = true
				t.add(items, s)
			}
			part[k] = AttackerResult{Name: r.Name, Level: r.Level, ScreeningOnly: r.ScreeningOnly, CrossPool: r.CrossPool, DiagnosticOnly: r.DiagnosticOnly}
			if len(seen) == 0 {
				part[k].Margin = math.Inf(-1)
				continue
			}
			cnt := float64(0)
			for _, s := range ss[k] {
				if key(items[s.item]) == name {
					cnt++
				}
			}
			part[k].Accuracy, part[k].Chance, part[k].N = ok/cnt, ch/cnt, len(seen)
			part[k].Margin = round(part[k].Accuracy - part[k].Chance)
			part[k].Answered, part[k].PValue = len(t.p), t.pValue()
		}
		correct(part)
		bd.Levels, _ = levels(part, ran)
		out[x] = bd
	}
	return out
}

// dataQuality counts the members carrying each data-quality flag.
func dataQuality(items []*harness.Item, members []int) map[string]int {
	var out map[string]int
	for _, i := range members {
		for _, n := range items[i].Quality.Names() {
			if out == nil {
				out = map[string]int{}
			}
			out[n]++
		}
	}
	return out
}

// score checks one outcome against its item and reduces it.
func score(items []*harness.Item, o Outcome) (scored, error) {
	if o.Item < 0 || o.Item >= len(items) {
		return scored{}, fmt.Errorf("outcome of %s: item %d out of range [0, %d)", o.Attacker, o.Item, len(items))
	}
	it := items[o.Item]
	a := o.Answer
	if !o.Reduced {
		var err error
		if a, err = Reduce(it, o.Pred); err != nil {
			return scored{}, fmt.Errorf("%s: item %s: %w", o.Attacker, it.ID, err)
		}
	}
	return scored{scored: o.Scored, pos: int32(o.Position), item: int32(o.Item), choice: uint8(a.Choice), correct: a.Choice == it.Answer, abstain: a.Abstain, floored: a.Floored, margin: a.Margin}, nil
}

// An Answer is a prediction reduced to what the cards and the item table
// read of it: the choice, whether it was a seeded guess, and its margin over
// the item's gold answer (Margin). A run that keeps its predictions so holds
// a few bytes per prediction instead of a slice of scores.
type Answer struct {
	Choice  int
	Abstain bool
	// Floored is attack.Prediction.Floored: a score of the answer is the
	// floor log(1e-6), not the model's own.
	Floored bool
	Margin  float64
}

// Reduce checks p against its item (one finite score per option, a choice
// among the options) and reduces it to an Answer.
func Reduce(it *harness.Item, p attack.Prediction) (Answer, error) {
	if len(p.Scores) != len(it.Options) {
		return Answer{}, fmt.Errorf("%d scores for %d options", len(p.Scores), len(it.Options))
	}
	if p.Choice < 0 || p.Choice >= len(it.Options) {
		return Answer{}, fmt.Errorf("choice %d out of range", p.Choice)
	}
	m, err := Margin(p.Scores, it.Answer)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Choice: p.Choice, Abstain: p.Abstain, Floored: p.Floored, Margin: m}, nil
}

// Margin is log p(gold) minus the mean log p of the other options: how much
// an attacker prefers the right answer (docs/attackers.md, answer scoring). Scores
// must be finite.
func Margin(scores []float64, gold int) (float64, error) {
	var others float64
	for j, s := range scores {
		if math.IsInf(s, 0) || math.IsNaN(s) {
			return 0, fmt.Errorf("score %v for option %d", s, j)
		}
		if j != gold {
			others += s
		}
	}
	if len(scores) < 2 {
		return 0, fmt.Errorf("%d options", len(scores))
	}
	return scores[gold] - others/float64(len(scores)-1), nil
}

func significance(c float64, n int) float64 {
	if n == 0 {
		return math.Inf(1)
	}
	return significanceZ * math.Sqrt(c*(1-c)/float64(n))
}

func benchmarkIndex(items []*harness.Item) ([]string, []int) {
	var names []string
	for _, it := range items {
		if !slices.Contains(names, it.Benchmark) {
			names = append(names, it.Benchmark)
		}
	}
	slices.Sort(names)
	at := map[string]int{}
	for k, n := range names {
		at[n] = k
	}
	bench := make([]int, len(items))
	for i, it := range items {
		bench[i] = at[it.Benchmark]
	}
	return names, bench
}

// attackerResult scores one attacker on one benchmark of n items from its
// outcomes per variant; ok is false when it has none. It also returns the
// scored outcomes, for the breakdowns.
func attackerResult(ctx context.Context, items []*harness.Item, a attackerInfo, byVariant map[int][]scored, cfg Config, benchmark string, n int) (AttackerResult, []scored, bool, error) {
	variants := make([]int, 0, len(byVariant))
	for v := range byVariant {
		variants = append(variants, v)
	}
	slices.Sort(variants)
	if len(variants) == 0 {
		return AttackerResult{}, nil, false, nil
	}
	buckets := cfg.CurveBuckets
	if buckets < 1 {
		buckets = 10
	}
	type perItem struct {
		stageSum, stageN float64
		solved           bool
	}
	acc := map[int]*perItem{}
	var ok, ch, scoredN, all float64
	var abstains, total int
	var scoredOnes []scored
	var test exactTest
	curveOK := make([]float64, buckets)
	curveChance := make([]float64, buckets)
	curveN := make([]float64, buckets)
	for _, v := range variants {
		ss := byVariant[v]
		slices.SortFunc(ss, func(x, y scored) int { return cmp.Compare(x.pos, y.pos) })
		m := len(ss)
		var allV float64
		for r, s := range ss {
			c := credit(items, s)
			allV += c
			total++
			if s.abstain {
				abstains++
			}
			if s.scored {
				pi := acc[int(s.item)]
				if pi == nil {
					pi = &perItem{}
					acc[int(s.item)] = pi
				}
				pi.stageSum += c
				pi.stageN++
				pi.solved = pi.solved || a.rule.Solves(s.answer())
				ok += c
				test.add(items, s)
				ch += items[s.item].Chance()
				scoredN++
				scoredOnes = append(scoredOnes, s)
			}
			bk := r * buckets / m
			curveOK[bk] += c
			curveChance[bk] += items[s.item].Chance()
			curveN[bk]++
		}
		all += allV / float64(m)
	}
	nv := float64(len(variants))
	r := AttackerResult{
		Name:           a.name,
		Level:          a.level,
		ScreeningOnly:  a.screening,
		N:              len(acc),
		Orders:         len(variants),
		LearnsFromPool: a.prequential,
		CrossPool:      a.crossPool,
		DiagnosticOnly: a.diagnostic,
		AccuracyAll:    all / nv,
		AbstainShare:   float64(abstains) / float64(total),
	}
	if scoredN > 0 {
		r.Accuracy, r.Chance = ok/scoredN, ch/scoredN
	}
	r.Margin = r.Accuracy - r.Chance
	// The exact test; Significant is set by correct, over the benchmark's
	// attackers.
	r.Answered, r.PValue = len(test.p), test.pValue()
	keys := make([]int, 0, len(acc))
	for i := range acc {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	var boot []float64
	solved := 0
	for _, i := range keys {
		pi := acc[i]
		boot = append(boot, pi.stageSum/pi.stageN)
		if pi.solved {
			solved++
		}
	}
	r.SolvedShare = float64(solved) / float64(n)
	reps := cfg.BootstrapReps
	if reps < 1 {
		reps = 1000
	}
	level := cfg.CILevel
	if level <= 0 || level >= 1 {
		level = 0.95
	}
	if len(boot) > 0 {
		lo, hi, err := kernels.BootstrapMeanOpt(ctx, boot, reps, bootstrapSeed(cfg.Seed, benchmark, a.name), level, kernels.Options{Threads: cfg.Threads})
		if err != nil {
			return AttackerResult{}, nil, false, err
		}
		r.CILow, r.CIHigh = lo, hi
	}
	if a.prequential {
		var alc float64
		r.LearningCurve = make([]float64, buckets)
		for b := range r.LearningCurve {
			if curveN[b] == 0 {
				continue
			}
			acc := curveOK[b] / curveN[b]
			c := curveChance[b] / curveN[b]
			r.LearningCurve[b] = round(acc)
			alc += (acc - c) / (1 - c) / float64(buckets)
		}
		r.ALC = roundPtr(alc)
	}
	for _, p := range []*float64{&r.Accuracy, &r.Margin, &r.CILow, &r.CIHigh, &r.Chance, &r.AccuracyAll, &r.AbstainShare, &r.SolvedShare} {
		*p = round(*p)
	}
	return r, scoredOnes, true, nil
}

// credit is what one answer adds to an attacker's accuracy: 1 when right, 0
// when wrong, and the item's chance when the attacker abstained. An
// abstention is a seeded guess made with nothing to go on; counting its
// outcome would let an attacker that knows nothing look significant by luck
// (the world's audit of the auditor found one), while its expectation, chance,
// adds nothing to the margin either way.
func credit(items []*harness.Item, s scored) float64 {
	if s.abstain {
		return items[s.item].Chance()
	}
	return b2f(s.correct)
}

// answer is s as the solve rule reads it.
func (s scored) answer() solve.Answer {
	return solve.Answer{Scored: s.scored, Abstained: s.abstain, Correct: s.correct, Margin: s.margin}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// bootstrapSeed gives every (benchmark, attacker) its own resampling stream,
// so adding an attacker or a benchmark leaves the others' intervals alone.
func bootstrapSeed(seed uint64, benchmark, attacker string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(benchmark))
	h.Write([]byte{0})
	h.Write([]byte(attacker))
	return seed ^ h.Sum64()
}

// levels computes the running maximum of the attackers' margins over the
// levels that ran (Video-Index section 2: the profile is nondecreasing). A
// level asked for of which no attacker scored an item is not run: it gets
// no eps and no significance, rather than the maximum of the levels below
// (the authors' levels.py: "a level without an attacker value is not
// measured"), and notRun says why. An attacker that abstained on every
// item did run: it found nothing to go on (all options tied), which is a
// result; a level whose attackers had no video to read is taken out by
// notRunForFailures.
// The cross-pool attackers are reported beside and enter no level
// (docs/attackers.md, pool level); nor do the further models of a
// Video-Oasis test (DiagnosticOnly: blind-reader#2, ...).
func levels(rs []AttackerResult, ran []harness.Level) (out Levels, notRun map[string]string) {
	var best *AttackerResult
	for _, l := range harness.Levels() {
		scored := false
		for k := range rs {
			if rs[k].Level != l || rs[k].ScreeningOnly || rs[k].CrossPool || rs[k].DiagnosticOnly || rs[k].N == 0 || math.IsInf(rs[k].Margin, -1) {
				continue
			}
			scored = true
			if best == nil || rs[k].Margin > best.Margin {
				best = &rs[k]
			}
		}
		if !slices.Contains(ran, l) {
			continue
		}
		if !scored {
			if notRun == nil {
				notRun = map[string]string{}
			}
			notRun[l.String()] = "no attacker of this level ran"
			continue
		}
		out.Set(l, &LevelResult{Eps: best.Margin, Attacker: best.Name, Significant: best.Significant,
			SignificantUncorrected: best.SignificantUncorrected, PValue: best.PValue})
	}
	return out, notRun
}

// withReference fills the figures that need a reference model: s* and its
// coverage, the breaking levels, the video dependence, the residual and the
// cluster-weighted s*. Figures it cannot give are named in c.Unavailable.
func withReference(c *Card, items []*harness.Item, members []int, all [][]scored, ref Reference, dup *dups.Result, cfg Config) {
	unavailable := func(field, why string) {
		if c.Unavailable == nil {
			c.Unavailable = map[string]string{}
		}
		c.Unavailable[field] = why
	}
	if ref == nil {
		for _, f := range []string{"reference_accuracy", "breaking_level", "video_dependence", "residual"} {
			unavailable(f, "needs a reference model's answers (--reference)")
		}
		return
	}
	var ok, n, wok, wn, refChance float64
	onRef := map[int32]bool{}
	for _, i := range members {
		p, has := ref[items[i].Key()]
		if !has {
			continue
		}
		hit := b2f(p == items[i].Answer)
		ok += hit
		n++
		refChance += items[i].Chance()
		onRef[int32(i)] = true
		if dup != nil {
			w := 1 / float64(dup.WithinSize[i])
			wok += w * hit
			wn += w
		}
	}
	c.ReferenceCoverage = roundPtr(n / float64(len(members)))
	if n == 0 {
		for _, f := range []string{"reference_accuracy", "breaking_level", "video_dependence", "residual"} {
			unavailable(f, "the reference answers none of this benchmark's items")
		}
		return
	}
	c.ReferencePartial = int(n) < len(members)
	c.Significance = round(significance(refChance/n, int(n)))
	withPaperMargins(c, items, all, onRef)
	s := ok / n
	c.ReferenceAccuracy = roundPtr(s)
	c.ReferenceN = int(n)
	if dup != nil {
		c.WeightedReferenceAccuracy = roundPtr(wok / wn)
	}
	c.ReferenceNearChance = s-c.Chance <= nearChanceDelta
	deltas := cfg.Deltas
	if len(deltas) == 0 {
		deltas = []float64{0.03, 0.05, 0.08}
	}
	if int(n) < MinReferenceItems {
		// The authors' minimum (levels.py: "reference n < 30, no level").
		unavailable("breaking_level", fmt.Sprintf("the reference scored %d of this benchmark's items, fewer than the %d a breaking level needs (Video-Index levels.py, MIN_N)", int(n), MinReferenceItems))
		deltas = nil
	} else {
		c.BreakingLevel = map[string]*string{}
	}
	for _, d := range deltas {
		key := strconv.FormatFloat(d, 'f', -1, 64)
		c.BreakingLevel[key] = nil
		if s-c.Chance <= d {
			// A reference within the tolerance of chance breaks at the
			// first level that ran (the authors' assign_level: "near and
			// not rescreened").
			for _, l := range harness.Levels() {
				if c.Levels.At(l) != nil {
					name := l.String()
					c.BreakingLevel[key] = &name
					break
				}
			}
			continue
		}
		for _, l := range harness.Levels() {
			if lr := c.Levels.At(l); lr != nil && lr.Eps >= s-c.Chance-d {
				name := l.String()
				c.BreakingLevel[key] = &name
				break
			}
		}
	}
	// m = s* minus the accuracy of the stronger blind reader (Video-Index
	// 3.3): the blind-reader models only, not question-match and not the
	// running maximum, which keeps the option level's learners out of it.
	// Each blind reader's accuracy is taken on the items it shares with the
	// reference (the authors' levels.py scores every attacker on the items
	// both it and the reference scored).
	var blind *AttackerResult
	var blindAcc float64
	for k := range c.Attackers {
		a := &c.Attackers[k]
		if !isBlindReader(a.Name) || a.Answered == 0 {
			continue
		}
		if acc, ok := accuracyOn(items, all[k], onRef); ok && (blind == nil || acc > blindAcc) {
			blind, blindAcc = a, acc
		}
	}
	if blind != nil {
		c.VideoDependence = roundPtr(s - blindAcc)
		c.VideoDependenceReader = blind.Name
		c.VideoDependenceAccuracy = roundPtr(blindAcc)
	} else {
		unavailable("video_dependence", "needs a blind reader (blind-reader, from lm_reader): m is s* minus the stronger blind reader's accuracy on the reference's items (Video-Index 3.3); none answered an item the reference answered")
	}
	if _, top, ok := c.Levels.Top(); ok {
		c.Residual = roundPtr(s - c.Chance - top.Eps)
	} else {
		unavailable("residual", "needs at least one level")
	}
}

// isBlindReader reports whether an attacker is a blind language-model
// reader: blind-reader, one of its variants on another lm_reader model
// ("blind-reader:<model>"), or the blind-reader#2, ... of lm_reader's later
// entries. Video-Index 3.3 subtracts the stronger of its blind readers, so
// every blind model the user lists is a candidate for m, although the later
// entries enter no eps.
func isBlindReader(name string) bool {
	return name == "blind-reader" || strings.HasPrefix(name, "blind-reader:") || strings.HasPrefix(name, "blind-reader#")
}

// creditsOn returns the items of on that ss scored, in item order, and each
// one's credit averaged over the orders that scored it (an abstention at the
// item's chance). accuracyOn and withPaperMargins both read it, so m's
// blind reader and the papers' margins average an attacker's orders alike;
// the fixed order makes their sums, and so the cards, byte-identical from
// run to run.
func creditsOn(items []*harness.Item, ss []scored, on map[int32]bool) ([]int32, []float64) {
	sum := map[int32]float64{}
	cnt := map[int32]float64{}
	for _, s := range ss {
		if on[s.item] {
			sum[s.item] += credit(items, s)
			cnt[s.item]++
		}
	}
	keys := make([]int32, 0, len(sum))
	for i := range sum {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	credits := make([]float64, len(keys))
	for k, i := range keys {
		credits[k] = sum[i] / cnt[i]
	}
	return keys, credits
}

// accuracyOn is an attacker's accuracy over the items of on that it scored
// (creditsOn); false when it scored none of them.
func accuracyOn(items []*harness.Item, ss []scored, on map[int32]bool) (float64, bool) {
	_, credits := creditsOn(items, ss, on)
	if len(credits) == 0 {
		return 0, false
	}
	var acc float64
	for _, x := range credits {
		acc += x
	}
	return acc / float64(len(credits)), true
}

// withPaperMargins sets each attacker's margin as the Video-Index authors'
// levels.py computes it, for comparison with the published tables: over the
// items both the reference and the attacker scored, an attacker with fewer
// than 30 such items dropped, compared with c.Significance, the threshold
// 2.326 sqrt(c(1-c)/n_ref) on the reference's items.
func withPaperMargins(c *Card, items []*harness.Item, all [][]scored, onRef map[int32]bool) {
	for k := range c.Attackers {
		a := &c.Attackers[k]
		keys, credits := creditsOn(items, all[k], onRef)
		if len(keys) < paperMinN {
			continue
		}
		var acc, ch float64
		for j, i := range keys {
			acc += credits[j]
			ch += items[i].Chance()
		}
		m := round((acc - ch) / float64(len(keys)))
		sig := m >= c.Significance
		a.PaperMargin, a.PaperN, a.PaperSignificant = &m, len(keys), &sig
	}
}

// withDuplicates copies the near-duplicate figures of the benchmark.
func withDuplicates(c *Card, dup *dups.Result) {
	if dup == nil {
		return
	}
	d, ok := dup.ForBenchmark(c.Benchmark)
	if !ok {
		return
	}
	c.NearDuplicateShare = roundPtr(d.NearDuplicateShare)
	c.CrossBenchmarkDuplicates = &d.CrossItems
	c.DistinctClusters = &d.Clusters
	c.SharedVideoItems = &d.SharedVideoItems
	c.SharedVideosBy = dup.VideosBy
	if dup.Confirmed {
		c.UnconfirmedDuplicates = &d.Unconfirmed
	}
	for _, f := range dup.Flows {
		if f.From == f.To {
			continue
		}
		switch c.Benchmark {
		case f.From:
			c.CrossBenchmarkFlows = append(c.CrossBenchmarkFlows, Flow{f.To, f.Count})
		case f.To:
			c.CrossBenchmarkFlows = append(c.CrossBenchmarkFlows, Flow{f.From, f.Count})
		}
	}
	for _, f := range dup.Videos {
		if f.From == c.Benchmark {
			c.SharedVideoFlows = append(c.SharedVideoFlows, Flow{f.To, f.Count})
		}
	}
	byName := func(x, y Flow) int { return strings.Compare(x.Benchmark, y.Benchmark) }
	slices.SortFunc(c.CrossBenchmarkFlows, byName)
	slices.SortFunc(c.SharedVideoFlows, byName)
}

// byDurationCategory orders a duration breakdown shortest first
// (harness.DurationCategories), then other categories by name, then "".
func byDurationCategory(bs []Breakdown) []Breakdown {
	known := harness.DurationCategories()
	rank := func(name string) int {
		if i := slices.Index(known, name); i >= 0 {
			return i
		}
		if name == "" {
			return len(known) + 1
		}
		return len(known)
	}
	slices.SortStableFunc(bs, func(a, b Breakdown) int { return rank(a.Name) - rank(b.Name) })
	return bs
}
