package world

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// TestSeedSweepAtTheTextLevels is the check of the metrics (issue
// 20, "Checks"): at seeds 1 to 8, on worlds of the default 100 videos and
// of 60, the audit at the levels that need no video catches every family
// planted at the option, text or pool level exactly there and raises no
// false alarm. Before the exact test and Holm's correction, seed 3's clean
// family was flagged at the pool level (knn-vote 0.542) and seed 5's order
// family by siblings at 1.000 on six items. The video levels of two worlds
// are checked by cmd/vidscreen's TestWorldAuditOfTheAuditor, through
// FFmpeg and ONNX Runtime.
func TestSeedSweepAtTheTextLevels(t *testing.T) {
	if testing.Short() {
		t.Skip("sixteen audits")
	}
	for _, videos := range []int{100, 60} {
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("seed %d, %d videos", seed, videos), func(t *testing.T) {
				w, err := Plan(Options{Seed: seed, Videos: videos})
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				res, err := run.Audit(context.Background(), run.Options{
					Items: []string{writeItems(t, w, dir)}, Out: filepath.Join(dir, "audit"), Seed: 1,
					Levels: []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool},
				})
				if err != nil {
					t.Fatal(err)
				}
				ev, err := truth.Evaluate(w.Truth, res.Cards)
				if err != nil {
					t.Fatal(err)
				}
				var table strings.Builder
				ev.WriteText(&table)
				for _, r := range ev.Families {
					switch {
					case r.Verdict == "false alarm" && samplePrior(t, w.Items, r.Benchmark, res.Cards):
						t.Logf("%s: caught at %v by %s (accuracy %v, n %d): the family's own sample has a per-question answer prior that is significant by itself (see samplePrior); a real shortcut of these %d items, not of the auditor",
							r.Family, r.Caught, r.Attacker, r.Accuracy, r.N, r.N)
					case r.Verdict == "false alarm" || r.Verdict == "missed":
						t.Errorf("%s: %s (caught at %v by %s, accuracy %v, n %d)\n%s", r.Family, r.Verdict, r.Caught, r.Attacker, r.Accuracy, r.N, table.String())
					}
				}
				if ev.Planted != 4 || ev.Recalled != 4 {
					t.Errorf("recalled %d of %d planted families, want 4 of 4\n%s", ev.Recalled, ev.Planted, table.String())
				}
			})
		}
	}
}

// samplePrior reports whether the items of benchmark carry a per-question
// answer prior that is significant on its own: answering each item with the
// gold option text most frequent among the other items of the same question
// and option set (a tie answers nothing) beats each item's chance at 0.05 after
// Holm's factor for the attackers that answered on the card. The world
// draws a family's answers uniformly (the clean family's two counts are
// uniform over 1 to 4), but a family of 24 items is a small sample of
// that: at seed 3 the shapes question has gold "2" on 7 of its 12 items and
// the background question "4" on 6 of 12, so answering the modal text is
// right on 13 of 24 (0.542, p = 0.002): exactly knn-vote's accuracy there;
// at seed 6 the window family's two colour questions have "cyan" on 8 of 14
// and "black" on 6 of 14 (knn-vote 0.536, p = 0.001).
// The pool level is meant to find such priors (Video-Index 3.4); the audit
// is right about the sample, and the truth's "no shortcut" is a statement
// about the generator.
func samplePrior(t *testing.T, items []*harness.Item, benchmark string, cards []metrics.Card) bool {
	t.Helper()
	var its []*harness.Item
	for _, it := range items {
		if it.Benchmark == benchmark {
			its = append(its, it)
		}
	}
	family := 0
	for _, c := range cards {
		if c.Benchmark == benchmark {
			for _, a := range c.Attackers {
				if a.Answered > 0 {
					family++
				}
			}
		}
	}
	key := func(it *harness.Item) string { // the question and its option set, in any order
		opts := slices.Clone(it.Options)
		slices.Sort(opts)
		return it.Question + "\x00" + strings.Join(opts, "\x00")
	}
	var p []float64
	right := 0
	for i, it := range its {
		counts := map[string]int{}
		for j, o := range its {
			if j != i && key(o) == key(it) {
				counts[o.Options[o.Answer]]++
			}
		}
		best, top, tie := "", 0, false
		for text, n := range counts {
			switch {
			case n > top:
				best, top, tie = text, n, false
			case n == top:
				tie = true
			}
		}
		p = append(p, it.Chance())
		if !tie && top > 0 && best == it.Options[it.Answer] {
			right++
		}
	}
	if family == 0 {
		return false
	}
	return metrics.PoissonBinomialUpperTail(p, right) <= metrics.Alpha/float64(family)
}
