package attack_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/kernels"
)

// attackerNamed returns the attacker called name from the default set.
func attackerNamed(t testing.TB, name string) attack.Attacker {
	t.Helper()
	for _, a := range attack.Attackers(attack.DefaultConfig()) {
		if a.Name() == name {
			return a
		}
	}
	t.Fatalf("no attacker %q", name)
	return nil
}

// inOrder is a stream of items in the order given, embedded lexically.
func inOrder(t testing.TB, items []*harness.Item) *attack.Stream {
	t.Helper()
	text, question := embedOrFail(t, items)
	order := make([]int32, len(items))
	for i := range order {
		order[i] = int32(i)
	}
	return attacktest.Stream(items, order, 0, 5, text, question)
}

func mc(id, q string, answer int, options ...string) *harness.Item {
	return &harness.Item{ID: id, Benchmark: "B", Video: "v-" + id, Question: q, Options: options, Answer: answer}
}

func TestAttackersOnSmallStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		attacker string
		items    []*harness.Item
		// want lists the expected choice per position, -1 for an abstention.
		want []int
	}{
		{
			name:     "fixed position picks the modal earlier gold among items with as many options",
			attacker: "fixed-position",
			items: []*harness.Item{
				mc("1", "q", 2, "a", "b", "c", "d"),
				mc("2", "q", 2, "a", "b", "c", "d"),
				mc("3", "q", 1, "a", "b"), // two options: no earlier two-option item
				mc("4", "q", 0, "a", "b", "c", "d"),
				mc("5", "q", 1, "a", "b", "c", "d"),
			},
			want: []int{-1, 2, -1, 2, 2},
		},
		{
			name:     "position prior conditions on the question's first word",
			attacker: "position-prior",
			items: []*harness.Item{
				mc("1", "why did he go", 0, "a", "b", "c"),
				mc("2", "how did he go", 2, "a", "b", "c"),
				mc("3", "why did she stay", 0, "a", "b", "c"),
				mc("4", "how did she stay", 2, "a", "b", "c"),
				mc("5", "why is it red", 0, "a", "b", "c"),
				mc("6", "how is it red", 1, "a", "b", "c"),
			},
			want: []int{-1, 0, 0, 2, 0, 2},
		},
		{
			name:     "question match picks the option that repeats the question's words and abstains on no overlap",
			attacker: "question-match",
			items: []*harness.Item{
				mc("1", "What did the dog chase in the garden?", 1, "a red car", "the garden ball the dog likes", "nothing"),
				mc("2", "Why?", 0, "xyz", "qrs"),
			},
			want: []int{1, -1},
		},
		{
			name:     "copy lends the answer of an identical earlier question by option text, else by letter",
			attacker: "copy",
			items: []*harness.Item{
				mc("1", "Which object was tidied up by the person?", 2, "The closet.", "The blanket.", "The clothes.", "The table."),
				mc("2", "Which object was tidied up by the person?", 0, "The clothes.", "The table.", "The blanket.", "The closet."),
				mc("3", "What is the weather like on the mountain today?", 1, "sunny", "rainy"),
				mc("4", "What is the weather like on the mountain today?", 0, "warm", "cold"),
			},
			// 2 copies item 1's "The clothes." (index 0 here); 3 has no
			// earlier look-alike; 4 copies item 3's gold letter 1.
			want: []int{-1, 0, -1, 1},
		},
		{
			name:     "k-NN vote follows the nearest earlier items' answers",
			attacker: "knn-vote",
			items: []*harness.Item{
				mc("1", "What colour is the sky at noon?", 0, "blue", "green"),
				mc("2", "What sound does a cat make?", 1, "woof", "meow"),
				mc("3", "What colour is the sky at noon on a clear day?", 1, "green", "blue"),
				mc("4", "What sound does a small cat make?", 1, "woof", "meow"),
			},
			want: []int{-1, 0, 1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := inOrder(t, tt.items)
			got, err := attackerNamed(t, tt.attacker).Attack(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			for p, w := range tt.want {
				g := got[p]
				if len(g.Scores) != len(tt.items[p].Options) {
					t.Fatalf("position %d: %d scores for %d options", p, len(g.Scores), len(tt.items[p].Options))
				}
				switch {
				case w < 0 && !g.Abstain:
					t.Errorf("position %d: chose %d, want an abstention", p, g.Choice)
				case w >= 0 && (g.Abstain || g.Choice != w):
					t.Errorf("position %d: chose %d (abstain %v), want %d", p, g.Choice, g.Abstain, w)
				}
			}
		})
	}
}

// learnedAccuracy runs attacker name over items in a seeded order and returns
// its accuracy on the last half of the positions, where it has learned.
func learnedAccuracy(t *testing.T, name string, items []*harness.Item, text *kernels.Matrix, keep func(s *attack.Stream, p int) bool) float64 {
	t.Helper()
	_, question := embedOrFail(t, items)
	if text == nil {
		text, question = embedOrFail(t, items)
	}
	order := attack.Orders(items, 11, 1)[0]
	s := attacktest.Stream(items, order, 0, 11, text, question)
	got, err := attackerNamed(t, name).Attack(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var ok, n float64
	for p := len(got) / 2; p < len(got); p++ {
		if keep != nil && !keep(s, p) {
			continue
		}
		n++
		if got[p].Choice == s.Items[p].Answer {
			ok++
		}
	}
	return ok / n
}

func TestLearnersFindPlantedShortcuts(t *testing.T) {
	t.Parallel()
	items := syntheticItems(600, 4)
	templates := func(s *attack.Stream, p int) bool { return s.Items[p].Benchmark == "Templates" }
	// A pair item counts once its other half has been answered.
	pairedEarlier := func(s *attack.Stream, p int) bool {
		if s.Items[p].Benchmark != "Pairs" {
			return false
		}
		for q := 0; q < p; q++ {
			if s.Items[q].Video == s.Items[p].Video {
				return true
			}
		}
		return false
	}
	// The regression gets embeddings in which the answer slot is written in
	// the first four columns under noise.
	rng := uint64(1)
	noisy := kernels.NewMatrix(len(items), 16)
	for i, it := range items {
		r := noisy.Row(i)
		for j := range r {
			rng = rng*6364136223846793005 + 1442695040888963407
			r[j] = float32(rng>>40)/float32(1<<24) - 0.5
		}
		r[it.Answer] += 1.5
	}
	kernels.NormalizeRows(noisy)
	tests := []struct {
		attacker string
		keep     func(s *attack.Stream, p int) bool
		text     *kernels.Matrix
		min      float64
	}{
		{"option-artifact", templates, nil, 0.6}, // the answer is the longest 2/3 of the time; chance 0.25
		{"siblings", pairedEarlier, nil, 0.95},   // the pair's other half says the answer
		{"regression", nil, noisy, 0.8},          // chance is 0.25 to 0.5
	}
	for _, tt := range tests {
		t.Run(tt.attacker, func(t *testing.T) {
			if acc := learnedAccuracy(t, tt.attacker, items, tt.text, tt.keep); acc < tt.min {
				t.Errorf("accuracy %.3f on the learned half, want >= %.2f", acc, tt.min)
			}
		})
	}
}

func TestOrdersArePermutationsThatDependOnSeedAndKeysOnly(t *testing.T) {
	t.Parallel()
	items := syntheticItems(50, 3)
	a := attack.Orders(items, 7, 3)
	for o, perm := range a {
		seen := slices.Clone(perm)
		slices.Sort(seen)
		for i, v := range seen {
			if int(v) != i {
				t.Fatalf("order %d is not a permutation: %v", o, perm)
			}
		}
	}
	if slices.Equal(a[0], a[1]) {
		t.Error("orders 0 and 1 are equal")
	}
	if b := attack.Orders(items, 8, 1); slices.Equal(a[0], b[0]) {
		t.Error("seeds 7 and 8 give the same order")
	}
	// Reversing the input must give the same sequence of items.
	rev := slices.Clone(items)
	slices.Reverse(rev)
	r := attack.Orders(rev, 7, 1)[0]
	for p := range r {
		if rev[r[p]] != items[a[0][p]] {
			t.Fatalf("position %d: %s after reversing the input, %s before", p, rev[r[p]].ID, items[a[0][p]].ID)
		}
	}
}

func TestAttackerSetFollowsLevels(t *testing.T) {
	t.Parallel()
	cfg := attack.DefaultConfig()
	var names []string
	for _, a := range attack.Attackers(cfg) {
		names = append(names, fmt.Sprintf("%s:%s:%d", a.Level(), a.Name(), attack.Variants(a, cfg)))
	}
	want := []string{"option:fixed-position:5", "option:option-artifact:5", "text:question-match:1",
		"pool:position-prior:5", "pool:copy:5", "pool:siblings:5", "pool:knn-vote:5", "pool:regression:5"}
	if !slices.Equal(names, want) {
		t.Errorf("attackers %v, want %v", names, want)
	}
	cfg.Levels = []harness.Level{harness.LevelText}
	if got := attack.Attackers(cfg); len(got) != 1 || got[0].Name() != "question-match" {
		t.Errorf("text level alone gives %d attackers", len(got))
	}
	for _, a := range attack.Attackers(attack.DefaultConfig()) {
		wantText := a.Name() == "knn-vote" || a.Name() == "regression"
		if attack.NeedsText(a) != wantText || attack.NeedsQuestion(a) != (a.Name() == "copy") {
			t.Errorf("%s: NeedsText %v NeedsQuestion %v", a.Name(), attack.NeedsText(a), attack.NeedsQuestion(a))
		}
	}
}

func TestEveryPredictionIsAProperDistributionChoice(t *testing.T) {
	t.Parallel()
	items := syntheticItems(200, 5)
	text, question := embedOrFail(t, items)
	out, err := attacktest.RunAll(context.Background(), attack.DefaultConfig(), items, 1, text, question)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		it := items[o.Item]
		if o.Pred.Choice < 0 || o.Pred.Choice >= len(it.Options) || len(o.Pred.Scores) != len(it.Options) {
			t.Fatalf("%s on %s: choice %d, %d scores", o.Attacker, it.ID, o.Pred.Choice, len(o.Pred.Scores))
		}
		var total float64
		for _, s := range o.Pred.Scores {
			if math.IsNaN(s) || math.IsInf(s, 0) || s > 1e-9 {
				t.Fatalf("%s on %s: score %v is not a finite log-probability", o.Attacker, it.ID, s)
			}
			total += math.Exp(s)
		}
		if math.Abs(total-1) > 1e-6 {
			t.Fatalf("%s on %s: probabilities sum to %v", o.Attacker, it.ID, total)
		}
	}
}

// TestSharedCacheNeverMixesRuns: a configuration's cache is keyed by the
// items and their embeddings, so a second run with the same item keys but
// other texts gets its own similarity search, exactly as with a fresh cache.
func TestSharedCacheNeverMixesRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first := syntheticItems(120, 6)
	second := make([]*harness.Item, len(first))
	for i, it := range first {
		c := *it
		c.Question = fmt.Sprintf("Entirely different question number %d?", i%7)
		second[i] = &c
	}
	shared := attack.DefaultConfig()
	if _, err := attacktest.RunAll(ctx, shared, first, 1, nil, nil); err == nil {
		// Without embeddings the pool attackers must refuse, not guess.
		t.Fatal("no error from attackers that need embeddings but got none")
	}
	for _, run := range [][]*harness.Item{first, second} {
		text, question := embedOrFail(t, run)
		got, err := attacktest.RunAll(ctx, shared, run, 1, text, question)
		if err != nil {
			t.Fatal(err)
		}
		want, err := attacktest.RunAll(ctx, attack.DefaultConfig(), run, 1, text, question)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if !samePrediction(got[k].Pred, want[k].Pred) {
				t.Fatalf("%s on %s: shared cache gives %+v, a fresh one %+v", got[k].Attacker, run[got[k].Item].ID, got[k].Pred, want[k].Pred)
			}
		}
	}
}

func TestAttackersHandleEmptyAndSingleItemStreams(t *testing.T) {
	t.Parallel()
	one := []*harness.Item{mc("only", "What happens?", 1, "nothing", "something")}
	for _, items := range [][]*harness.Item{nil, one} {
		s := &attack.Stream{Seed: 1, Items: items, Text: kernels.NewMatrix(len(items), 8), Question: kernels.NewMatrix(len(items), 8)}
		if len(items) > 0 {
			s = inOrder(t, items)
		}
		for _, a := range attack.Attackers(attack.DefaultConfig()) {
			got, err := a.Attack(context.Background(), s)
			if err != nil {
				t.Fatalf("%s on %d items: %v", a.Name(), len(items), err)
			}
			if len(got) != len(items) {
				t.Fatalf("%s: %d predictions for %d items", a.Name(), len(got), len(items))
			}
			if len(items) == 1 && attack.Prequential(a) && !got[0].Abstain {
				t.Errorf("%s answered the first item of a stream without abstaining", a.Name())
			}
		}
	}
}

func TestAttackersStopWhenCancelled(t *testing.T) {
	t.Parallel()
	items := syntheticItems(50, 8)
	s := inOrder(t, items)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, a := range attack.Attackers(attack.DefaultConfig()) {
		if _, err := a.Attack(ctx, s); err == nil {
			t.Errorf("%s: no error from a cancelled context", a.Name())
		}
	}
}
