package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// pred is a prediction that gives probability 0.8 to its choice and shares
// the rest evenly, so its margin is log 4 when right (two options).
func pred(n, choice int) attack.Prediction {
	sc := make([]float64, n)
	for j := range sc {
		sc[j] = math.Log(0.2 / float64(n-1))
	}
	sc[choice] = math.Log(0.8)
	return attack.Prediction{Choice: choice, Scores: sc}
}

// fixtureRun is a hand-computable run: benchmark A has 50 two-option items
// (gold i%2), benchmark B 20 four-option items (gold 0).
//   - question-match (text, one order) is right on A items < 42 and B items < 5;
//   - fixed-position (option, two orders: identity and reversed) is right on
//     even A items;
//   - regression (pool, same two orders) is right everywhere but at the first
//     position of each order.
//
// The learners are scored on the last 10 positions of each order (A40..49,
// then A9..0): 20 distinct items.
func fixtureRun() ([]*harness.Item, []metrics.Outcome) {
	var items []*harness.Item
	for i := 0; i < 50; i++ {
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "A", Video: "v", Question: "q", Options: []string{"x", "y"}, Answer: i % 2})
	}
	for i := 0; i < 20; i++ {
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: "w", Question: "q", Options: []string{"a", "b", "c", "d"}, Answer: 0})
	}
	answer := func(i int, right bool) attack.Prediction {
		it := items[i]
		if right {
			return pred(len(it.Options), it.Answer)
		}
		return pred(len(it.Options), (it.Answer+1)%len(it.Options))
	}
	var out []metrics.Outcome
	for i := 0; i < 50; i++ {
		out = append(out, metrics.Outcome{Item: i, Attacker: "question-match", Level: harness.LevelText, Position: i, Scored: true, Pred: answer(i, i < 42)})
	}
	for i := 0; i < 20; i++ {
		out = append(out, metrics.Outcome{Item: 50 + i, Attacker: "question-match", Level: harness.LevelText, Position: i, Scored: true, Pred: answer(50+i, i < 5)})
	}
	for v := 0; v < 2; v++ {
		for p := 0; p < 50; p++ {
			i := p
			if v == 1 {
				i = 49 - p
			}
			out = append(out,
				metrics.Outcome{Item: i, Attacker: "fixed-position", Level: harness.LevelOption, Variant: v, Position: p, Scored: p >= 40, Pred: answer(i, i%2 == 0)},
				metrics.Outcome{Item: i, Attacker: "regression", Level: harness.LevelPool, Variant: v, Position: p, Scored: p >= 40, Pred: answer(i, p > 0)})
		}
	}
	return items, out
}

func fixtureConfig() metrics.Config {
	ac := attack.DefaultConfig()
	ac.Orders = 2
	cfg := metrics.DefaultConfig(ac)
	cfg.Seed = 1
	return cfg
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestCardsOnAHandComputedRun(t *testing.T) {
	t.Parallel()
	items, outcomes := fixtureRun()
	ref := metrics.Reference{}
	for i := 0; i < 50; i++ {
		p := items[i].Answer
		if i >= 45 {
			p = 1 - p
		}
		ref[items[i].Key()] = p
	}
	within := make([]int32, len(items))
	for i := range within {
		within[i] = 1
		if i < 5 {
			within[i] = 5
		}
	}
	dup := &dups.Result{
		WithinSize: within,
		Benchmarks: []dups.Benchmark{
			{Benchmark: "A", N: 50, WithinPairs: 10, NearDuplicateShare: 0.1, Clusters: 46, CrossItems: 2, CrossPairs: 2, SharedVideoItems: 1},
			{Benchmark: "B", N: 20, CrossItems: 2, CrossPairs: 2, SharedVideoItems: 1, Clusters: 20},
		},
		Flows:  []dups.Flow{{From: "A", To: "A", Count: 10}, {From: "A", To: "B", Count: 2}},
		Videos: []dups.Flow{{From: "A", To: "B", Count: 1}, {From: "B", To: "A", Count: 1}},
	}
	cards, err := metrics.Cards(context.Background(), items, outcomes, ref, dup, fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 2 || cards[0].Benchmark != "A" || cards[1].Benchmark != "B" {
		t.Fatalf("cards %+v", cards)
	}
	a, b := cards[0], cards[1]
	if a.N != 50 || !near(a.Chance, 0.5) || !near(a.Significance, 2.326*math.Sqrt(0.25/50)) {
		t.Errorf("A: n %d chance %v significance %v", a.N, a.Chance, a.Significance)
	}
	byName := map[string]metrics.AttackerResult{}
	for _, r := range a.Attackers {
		byName[r.Name] = r
	}
	if names := []string{a.Attackers[0].Name, a.Attackers[1].Name, a.Attackers[2].Name}; !slices.Equal(names, []string{"fixed-position", "question-match", "regression"}) {
		t.Errorf("attacker order %v, want the order of attack.Attackers", names)
	}
	tests := []struct {
		name                          string
		acc, margin, all, alc         float64
		n                             int
		significant, hasCurve, solved bool
	}{
		// Final stage: last 10 positions = A40..49 and A9..0, half even.
		{name: "fixed-position", acc: 0.5, margin: 0, all: 0.5, n: 20, alc: 0, hasCurve: true},
		{name: "question-match", acc: 0.84, margin: 0.34, all: 0.84, n: 50, significant: true},
		// Right everywhere but position 0: the first tenth is 4/5 right.
		{name: "regression", acc: 1, margin: 0.5, all: 0.98, n: 20, alc: (0.6 + 9) / 10, hasCurve: true, significant: true},
	}
	for _, tt := range tests {
		r := byName[tt.name]
		if !near(r.Accuracy, tt.acc) || !near(r.Margin, tt.margin) || !near(r.AccuracyAll, tt.all) || r.N != tt.n || r.Significant != tt.significant {
			t.Errorf("%s: accuracy %v margin %v all %v n %d significant %v; want %v %v %v %d %v",
				tt.name, r.Accuracy, r.Margin, r.AccuracyAll, r.N, r.Significant, tt.acc, tt.margin, tt.all, tt.n, tt.significant)
		}
		if r.CILow > r.Accuracy+1e-9 || r.CIHigh < r.Accuracy-1e-9 || r.CILow < 0 || r.CIHigh > 1 {
			t.Errorf("%s: interval [%v, %v] does not hold accuracy %v", tt.name, r.CILow, r.CIHigh, r.Accuracy)
		}
		if (r.ALC != nil) != tt.hasCurve || (tt.hasCurve && !near(*r.ALC, tt.alc)) || (len(r.LearningCurve) == 10) != tt.hasCurve {
			t.Errorf("%s: ALC %v curve %v, want ALC %v", tt.name, r.ALC, r.LearningCurve, tt.alc)
		}
	}
	if a.Attackers[0].Orders != 2 || byName["question-match"].Orders != 1 {
		t.Errorf("orders: %d and %d", a.Attackers[0].Orders, byName["question-match"].Orders)
	}
	// Levels are a running maximum.
	if a.Levels.Option.Eps != 0 || a.Levels.Text.Eps != 0.34 || a.Levels.Text.Attacker != "question-match" || a.Levels.Pool.Eps != 0.5 || !a.Levels.Pool.Significant {
		t.Errorf("levels %+v %+v %+v", *a.Levels.Option, *a.Levels.Text, *a.Levels.Pool)
	}
	// s* = 0.9, c = 0.5: text (0.34) breaks within 0.08 (0.32), pool within 0.05 and 0.03.
	want := map[string]string{"0.03": "pool", "0.05": "pool", "0.08": "text"}
	for d, l := range want {
		if got := a.BreakingLevel[d]; got == nil || *got != l {
			t.Errorf("breaking level at %s: %v, want %s", d, got, l)
		}
	}
	if !near(*a.ReferenceAccuracy, 0.9) || a.ReferenceN != 50 || !near(*a.Residual, -0.1) {
		t.Errorf("s* %v (n %d), residual %v", *a.ReferenceAccuracy, a.ReferenceN, *a.Residual)
	}
	// m needs a blind reader (Video-Index 3.3); question-match is not one.
	if a.VideoDependence != nil || a.Unavailable["video_dependence"] == "" {
		t.Errorf("video dependence %v without a blind reader (unavailable: %q)", a.VideoDependence, a.Unavailable["video_dependence"])
	}
	// Weights 1/5 on A0..A4 (all right), 1 elsewhere; wrong on A45..49.
	if !near(*a.WeightedReferenceAccuracy, 41.0/46) {
		t.Errorf("weighted s* %v, want %v", *a.WeightedReferenceAccuracy, 41.0/46)
	}
	if !near(*a.NearDuplicateShare, 0.1) || *a.CrossBenchmarkDuplicates != 2 || !slices.Equal(a.CrossBenchmarkFlows, []metrics.Flow{{Benchmark: "B", Count: 2}}) {
		t.Errorf("duplicates: share %v cross %v flows %v", *a.NearDuplicateShare, *a.CrossBenchmarkDuplicates, a.CrossBenchmarkFlows)
	}
	if a.ALC == nil || !near(*a.ALC, 0.96) {
		t.Errorf("card ALC %v, want the regression's 0.96", a.ALC)
	}
	// B has no reference answers and only the text attacker: its option
	// and pool levels are not run, not the maximum of the levels below
	// (issue 20, point 4).
	if b.ReferenceAccuracy != nil || b.BreakingLevel != nil || b.Levels.Option != nil || b.Levels.Text == nil || b.Levels.Pool != nil {
		t.Errorf("B: reference %v breaking %v levels %+v", b.ReferenceAccuracy, b.BreakingLevel, b.Levels)
	}
	if b.LevelsNotRun["pool"] != "no attacker of this level ran" || b.LevelsNotRun["option"] == "" || b.LevelsNotRun["text"] != "" || !slices.Equal(b.LevelsRun, []harness.Level{harness.LevelText}) {
		t.Errorf("B: not run %v, run %v", b.LevelsNotRun, b.LevelsRun)
	}
}

func TestCardsJSONIsByteStable(t *testing.T) {
	t.Parallel()
	items, outcomes := fixtureRun()
	first, err := metrics.Cards(context.Background(), items, outcomes, nil, nil, fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(first)
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 3; k++ {
		shuffled := slices.Clone(outcomes)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again, err := metrics.Cards(context.Background(), items, shuffled, nil, nil, fixtureConfig())
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := json.Marshal(again); string(got) != string(want) {
			t.Fatalf("cards differ after shuffling the outcomes:\n%s\n%s", got, want)
		}
	}
	var decoded []map[string]any
	if err := json.Unmarshal(want, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"benchmark", "n", "chance", "reference_accuracy", "levels", "attackers", "breaking_level", "near_duplicate_share", "cross_benchmark_duplicates"} {
		if _, ok := decoded[0][field]; !ok {
			t.Errorf("cards.json lacks %q", field)
		}
	}
	if decoded[0]["reference_accuracy"] != nil || decoded[0]["breaking_level"] != nil {
		t.Error("reference figures are not null without a reference")
	}
}

func TestCardsRefuseOutcomesThatDoNotMatch(t *testing.T) {
	t.Parallel()
	items, outcomes := fixtureRun()
	tests := []struct {
		name   string
		change func(o *metrics.Outcome)
	}{
		{"an unknown attacker", func(o *metrics.Outcome) { o.Attacker = "oracle" }},
		{"an item out of range", func(o *metrics.Outcome) { o.Item = len(items) }},
		{"too few scores", func(o *metrics.Outcome) { o.Pred.Scores = o.Pred.Scores[:1] }},
		{"an infinite score", func(o *metrics.Outcome) { o.Pred.Scores = []float64{math.Inf(-1), 0} }},
		{"a choice out of range", func(o *metrics.Outcome) { o.Pred.Choice = 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := slices.Clone(outcomes)
			tt.change(&bad[3])
			if _, err := metrics.Cards(context.Background(), items, bad, nil, nil, fixtureConfig()); err == nil {
				t.Error("no error")
			}
			if _, err := metrics.ItemScores(items, bad, fixtureConfig()); err == nil {
				t.Error("no error from ItemScores")
			}
		})
	}
}

func TestItemScores(t *testing.T) {
	t.Parallel()
	items, outcomes := fixtureRun()
	rows, err := metrics.ItemScores(items, outcomes, fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	// 50 A items x 3 attackers + 20 B items x 1.
	if len(rows) != 170 {
		t.Fatalf("%d rows", len(rows))
	}
	for k := 1; k < len(rows); k++ {
		if rows[k].Item < rows[k-1].Item {
			t.Fatal("rows not ordered by item")
		}
	}
	find := func(item int, attacker string) metrics.ItemScore {
		for _, r := range rows {
			if r.Item == item && r.Attacker == attacker {
				return r
			}
		}
		t.Fatalf("no row for item %d, %s", item, attacker)
		return metrics.ItemScore{}
	}
	// Item 49 is last in order 0 (scored there, right) and first in order 1
	// (wrong, not scored): the table shows the scored answer.
	r := find(49, "regression")
	if !r.Scored || !r.Correct || !r.Solved || !near(r.Margin, math.Log(4)) || r.Variants != 2 || r.Choice != items[49].Answer {
		t.Errorf("item 49, regression: %+v", r)
	}
	// Item 20 sits at positions 20 and 29: never scored, never solved.
	r = find(20, "regression")
	if r.Scored || r.Correct || r.Solved || r.Variants != 2 {
		t.Errorf("item 20, regression: %+v", r)
	}
	r = find(0, "question-match")
	if !r.Scored || !r.Correct || !near(r.Margin, math.Log(4)) || !r.Solved {
		t.Errorf("item 0, question-match: %+v", r)
	}
}
