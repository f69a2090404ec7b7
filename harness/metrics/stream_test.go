package metrics_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// fromSlice yields, for each benchmark asked for, the outcomes of its items
// among all, in a seeded shuffled order; reduced hands them over reduced
// (metrics.Reduce), as a run that keeps its predictions compactly does.
func fromSlice(t testing.TB, items []*harness.Item, all []metrics.Outcome, reduced bool, calls *int) metrics.BenchmarkOutcomes {
	r := rand.New(rand.NewPCG(3, 4))
	return func(members []int, yield func(metrics.Outcome) error) error {
		*calls++
		var mine []metrics.Outcome
		for _, o := range all {
			if _, ok := slices.BinarySearch(members, o.Item); ok {
				mine = append(mine, o)
			}
		}
		r.Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
		for _, o := range mine {
			if reduced {
				a, err := metrics.Reduce(items[o.Item], o.Pred)
				if err != nil {
					t.Fatal(err)
				}
				o.Reduced, o.Answer = true, a
				o.Pred.Scores = nil // not read
			}
			if err := yield(o); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestCardsByBenchmarkMatchesCards checks that the cards and item scores
// computed one benchmark at a time, from whole or reduced predictions, are
// those of Cards and ItemScores over every outcome at once, with and
// without a reference and duplicates.
func TestCardsByBenchmarkMatchesCards(t *testing.T) {
	t.Parallel()
	items, outcomes := fixtureRun()
	ref := metrics.Reference{}
	for i := 0; i < 60; i += 3 {
		ref[items[i].Key()] = i % 2
	}
	within := make([]int32, len(items))
	for i := range within {
		within[i] = 1 + int32(i%3)
	}
	dup := &dups.Result{WithinSize: within, Benchmarks: []dups.Benchmark{{Benchmark: "A", N: 50, Clusters: 40}, {Benchmark: "B", N: 20, Clusters: 20}},
		Flows: []dups.Flow{{From: "A", To: "B", Count: 2}}}
	cfg := fixtureConfig()
	for _, tt := range []struct {
		name    string
		ref     metrics.Reference
		dup     *dups.Result
		reduced bool
	}{
		{"whole predictions", nil, nil, false},
		{"reduced predictions", nil, nil, true},
		{"reference and duplicates", ref, dup, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := metrics.Cards(context.Background(), items, outcomes, tt.ref, tt.dup, cfg)
			if err != nil {
				t.Fatal(err)
			}
			wantScores, err := metrics.ItemScores(items, outcomes, cfg)
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			got, scores, err := metrics.CardsByBenchmark(context.Background(), items, fromSlice(t, items, outcomes, tt.reduced, &calls), tt.ref, tt.dup, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if calls != 2 {
				t.Errorf("%d calls for the outcomes of 2 benchmarks", calls)
			}
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			if string(wj) != string(gj) {
				t.Errorf("cards differ:\n%s\nwant\n%s", gj, wj)
			}
			if len(scores) != 170 || !reflect.DeepEqual(scores, wantScores) {
				t.Errorf("%d item scores differ from ItemScores' %d", len(scores), len(wantScores))
			}
		})
	}
}

// TestCardsByBenchmarkRefusesWhatCardsRefuses checks the stream's errors:
// the outcomes Cards refuses, an outcome of another benchmark's item, and
// the source's own error.
func TestCardsByBenchmarkRefusesWhatCardsRefuses(t *testing.T) {
	t.Parallel()
	items, outcomes := fixtureRun()
	tests := []struct {
		name   string
		change func(o *metrics.Outcome)
		want   string
	}{
		{"an unknown attacker", func(o *metrics.Outcome) { o.Attacker = "oracle" }, `unknown attacker "oracle"`},
		{"too few scores", func(o *metrics.Outcome) { o.Pred.Scores = o.Pred.Scores[:1] }, "1 scores for 2 options"},
		{"a choice out of range", func(o *metrics.Outcome) { o.Pred.Choice = 7 }, "choice 7 out of range"},
		{"another benchmark's item", func(o *metrics.Outcome) { o.Item = 60 }, "of benchmark B among those of A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := func(members []int, yield func(metrics.Outcome) error) error {
				for _, o := range outcomes {
					if items[o.Item].Benchmark != items[members[0]].Benchmark {
						continue
					}
					if o.Item == 3 && o.Attacker == "question-match" {
						tt.change(&o)
					}
					if err := yield(o); err != nil {
						return err
					}
				}
				return nil
			}
			_, _, err := metrics.CardsByBenchmark(context.Background(), items, src, nil, nil, fixtureConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := metrics.CardsByBenchmark(ctx, items, fromSlice(t, items, outcomes, false, new(int)), nil, nil, fixtureConfig()); err != context.Canceled {
		t.Errorf("cancelled: error %v", err)
	}
}
