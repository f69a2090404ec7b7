package metrics

import (
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
	"github.com/vidscreen/vidscreen/kernels"
)

// significanceZ is the one-sided 1% normal quantile of DESIGN.md's
// significance rule 2.326 * sqrt(c(1-c)/n).
const significanceZ = 2.326

// solvedMargin is the per-item margin above which an attacker "solves" an
// item: log 2, its gold twice as likely as the others' geometric mean
// (DESIGN.md, answer scoring).
var solvedMargin = math.Log(2)

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
}

func configured(cfg attack.Config) []attackerInfo {
	var out []attackerInfo
	for _, a := range attack.Attackers(cfg) {
		out = append(out, attackerInfo{a.Name(), a.Level(), attack.Prequential(a), attack.Variants(a, cfg)})
	}
	return out
}

// scored is one outcome reduced to what the metrics read.
type scored struct {
	pos     int
	item    int
	correct bool
	abstain bool
	margin  float64
}

// Cards computes one card per benchmark of items, sorted by benchmark name.
// outcomes may come in any order; an attacker or item without outcomes is
// left out of the figures that need it. ref may be nil (no reference model)
// and dup may be nil (no near-duplicate analysis). An outcome naming an
// unknown attacker, an item out of range or scores of the wrong length is an
// error: it means the records and the configuration do not match.
func Cards(ctx context.Context, items []*harness.Item, outcomes []Outcome, ref Reference, dup *dups.Result, cfg Config) ([]Card, error) {
	atts := configured(cfg.Attack)
	col := map[string]int{}
	for k, a := range atts {
		col[a.name] = k
	}
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
	cards := make([]Card, len(names))
	for b, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var members []int
		for i := range items {
			if bench[i] == b {
				members = append(members, i)
			}
		}
		c := Card{Benchmark: name, N: len(members)}
		var chance float64
		for _, i := range members {
			chance += items[i].Chance()
		}
		chance /= float64(len(members))
		c.Chance = round(chance)
		c.Significance = round(significance(chance, len(members)))
		for k, a := range atts {
			r, ok, err := attackerResult(ctx, items, a, groups[k][b], cfg, name)
			if err != nil {
				return nil, fmt.Errorf("cards: %s: %s: %w", name, a.name, err)
			}
			if !ok {
				continue
			}
			c.Attackers = append(c.Attackers, r)
			if a.name == "regression" {
				c.LearningCurve, c.ALC = r.LearningCurve, r.ALC
			}
		}
		c.Levels = levels(c.Attackers, cfg.Attack.Levels)
		withReference(&c, items, members, ref, dup, cfg)
		withDuplicates(&c, dup)
		cards[b] = c
	}
	return cards, nil
}

// score checks one outcome against its item and reduces it.
func score(items []*harness.Item, o Outcome) (scored, error) {
	if o.Item < 0 || o.Item >= len(items) {
		return scored{}, fmt.Errorf("outcome of %s: item %d out of range [0, %d)", o.Attacker, o.Item, len(items))
	}
	it := items[o.Item]
	if len(o.Pred.Scores) != len(it.Options) {
		return scored{}, fmt.Errorf("%s: item %s: %d scores for %d options", o.Attacker, it.ID, len(o.Pred.Scores), len(it.Options))
	}
	if o.Pred.Choice < 0 || o.Pred.Choice >= len(it.Options) {
		return scored{}, fmt.Errorf("%s: item %s: choice %d out of range", o.Attacker, it.ID, o.Pred.Choice)
	}
	m, err := Margin(o.Pred.Scores, it.Answer)
	if err != nil {
		return scored{}, fmt.Errorf("%s: item %s: %w", o.Attacker, it.ID, err)
	}
	return scored{pos: o.Position, item: o.Item, correct: o.Pred.Choice == it.Answer, abstain: o.Pred.Abstain, margin: m}, nil
}

// Margin is log p(gold) minus the mean log p of the other options: how much
// an attacker prefers the right answer (DESIGN.md, answer scoring). Scores
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

// attackerResult scores one attacker on one benchmark from its outcomes per
// variant; ok is false when it has none.
func attackerResult(ctx context.Context, items []*harness.Item, a attackerInfo, byVariant map[int][]scored, cfg Config, benchmark string) (AttackerResult, bool, error) {
	variants := make([]int, 0, len(byVariant))
	for v := range byVariant {
		variants = append(variants, v)
	}
	slices.Sort(variants)
	if len(variants) == 0 {
		return AttackerResult{}, false, nil
	}
	buckets := cfg.CurveBuckets
	if buckets < 1 {
		buckets = 10
	}
	share := cfg.FinalShare
	if share <= 0 || share > 1 {
		share = 0.2
	}
	type perItem struct {
		stageSum, stageN float64
		marginSum        float64
		n                int
	}
	acc := map[int]*perItem{}
	var accStage, chanceStage, accAll float64
	var stageN, abstains, total int
	curveOK := make([]float64, buckets)
	curveChance := make([]float64, buckets)
	curveN := make([]float64, buckets)
	for _, v := range variants {
		ss := byVariant[v]
		slices.SortFunc(ss, func(x, y scored) int { return x.pos - y.pos })
		m := len(ss)
		first := 0
		if a.prequential {
			first = m - int(math.Ceil(share*float64(m)))
		}
		var ok, ch, all float64
		for r, s := range ss {
			pi := acc[s.item]
			if pi == nil {
				pi = &perItem{}
				acc[s.item] = pi
			}
			c := b2f(s.correct)
			pi.marginSum += s.margin
			pi.n++
			all += c
			total++
			if s.abstain {
				abstains++
			}
			if r >= first {
				pi.stageSum += c
				pi.stageN++
				ok += c
				ch += items[s.item].Chance()
			}
			bk := r * buckets / m
			curveOK[bk] += c
			curveChance[bk] += items[s.item].Chance()
			curveN[bk]++
		}
		accStage += ok / float64(m-first)
		chanceStage += ch / float64(m-first)
		accAll += all / float64(m)
		stageN = max(stageN, m-first)
	}
	nv := float64(len(variants))
	r := AttackerResult{
		Name:         a.name,
		Level:        a.level,
		Accuracy:     accStage / nv,
		Chance:       chanceStage / nv,
		N:            stageN,
		Orders:       len(variants),
		AccuracyAll:  accAll / nv,
		AbstainShare: float64(abstains) / float64(total),
	}
	r.Margin = r.Accuracy - r.Chance
	r.Significant = r.Margin >= significance(r.Chance, r.N)
	keys := make([]int, 0, len(acc))
	for i := range acc {
		keys = append(keys, i)
	}
	slices.Sort(keys)
	var boot []float64
	solved := 0
	for _, i := range keys {
		pi := acc[i]
		if pi.stageN > 0 {
			boot = append(boot, pi.stageSum/pi.stageN)
		}
		if pi.marginSum/float64(pi.n) > solvedMargin {
			solved++
		}
	}
	r.SolvedShare = float64(solved) / float64(len(keys))
	reps := cfg.BootstrapReps
	if reps < 1 {
		reps = 1000
	}
	level := cfg.CILevel
	if level <= 0 || level >= 1 {
		level = 0.95
	}
	lo, hi, err := kernels.BootstrapMeanOpt(ctx, boot, reps, bootstrapSeed(cfg.Seed, benchmark, a.name), level, kernels.Options{Threads: cfg.Threads})
	if err != nil {
		return AttackerResult{}, false, err
	}
	r.CILow, r.CIHigh = lo, hi
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
	return r, true, nil
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
// levels that ran (Video-Index section 2: the profile is nondecreasing).
func levels(rs []AttackerResult, ran []harness.Level) Levels {
	var out Levels
	var best *AttackerResult
	for _, l := range []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool} {
		for k := range rs {
			if rs[k].Level == l && (best == nil || rs[k].Margin > best.Margin) {
				best = &rs[k]
			}
		}
		if best == nil || !slices.Contains(ran, l) {
			continue
		}
		lr := &LevelResult{Eps: best.Margin, Attacker: best.Name, Significant: best.Significant}
		switch l {
		case harness.LevelOption:
			out.Option = lr
		case harness.LevelText:
			out.Text = lr
		case harness.LevelPool:
			out.Pool = lr
		}
	}
	return out
}

// withReference fills the figures that need a reference model: s*, the
// breaking levels, the video dependence, the residual and the
// cluster-weighted s*.
func withReference(c *Card, items []*harness.Item, members []int, ref Reference, dup *dups.Result, cfg Config) {
	if ref == nil {
		return
	}
	var ok, n, wok, wn float64
	for _, i := range members {
		p, has := ref[items[i].Key()]
		if !has {
			continue
		}
		hit := b2f(p == items[i].Answer)
		ok += hit
		n++
		if dup != nil {
			w := 1 / float64(dup.WithinSize[i])
			wok += w * hit
			wn += w
		}
	}
	if n == 0 {
		return
	}
	s := ok / n
	c.ReferenceAccuracy = roundPtr(s)
	c.ReferenceN = int(n)
	if dup != nil {
		c.WeightedReferenceAccuracy = roundPtr(wok / wn)
	}
	c.BreakingLevel = map[string]*string{}
	deltas := cfg.Deltas
	if len(deltas) == 0 {
		deltas = []float64{0.03, 0.05, 0.08}
	}
	ordered := []*LevelResult{c.Levels.Option, c.Levels.Text, c.Levels.Pool}
	names := []string{"option", "text", "pool"}
	for _, d := range deltas {
		key := strconv.FormatFloat(d, 'f', -1, 64)
		c.BreakingLevel[key] = nil
		for k, lr := range ordered {
			if lr != nil && lr.Eps >= s-c.Chance-d {
				name := names[k]
				c.BreakingLevel[key] = &name
				break
			}
		}
	}
	blind := math.Inf(-1)
	for _, a := range c.Attackers {
		if a.Level == harness.LevelText {
			blind = max(blind, a.Accuracy)
		}
	}
	if !math.IsInf(blind, -1) {
		c.VideoDependence = roundPtr(s - blind)
	}
	for _, lr := range []*LevelResult{c.Levels.Pool, c.Levels.Text, c.Levels.Option} {
		if lr != nil {
			c.Residual = roundPtr(s - c.Chance - lr.Eps)
			break
		}
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
	c.SharedVideos = &d.SharedVideos
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
		switch c.Benchmark {
		case f.From:
			c.SharedVideoFlows = append(c.SharedVideoFlows, Flow{f.To, f.Count})
		case f.To:
			c.SharedVideoFlows = append(c.SharedVideoFlows, Flow{f.From, f.Count})
		}
	}
	byName := func(x, y Flow) int { return strings.Compare(x.Benchmark, y.Benchmark) }
	slices.SortFunc(c.CrossBenchmarkFlows, byName)
	slices.SortFunc(c.SharedVideoFlows, byName)
}
