package world

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// TestSeedSweepAtTheTextLevels is the check of the metrics (issue
// 20, "Checks"): at seeds 1 to 8, on worlds of the default 100 videos and
// of 60, the audit at the levels that need no video catches every family
// planted at the option, text or pool level exactly there and raises no
// false alarm. Before the exact test and Holm's correction, seed 3's clean
// family was flagged at the pool level (knn-vote 0.542) and seed 5's order
// family by siblings at 1.000 on six items; after them, seed 3's clean and
// seed 6's window family still were, by a real answer prior of their small
// samples, which Plan now draws again (answerPrior). The video levels of two worlds
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
					Items: []string{writeItems(t, w, dir)}, Out: filepath.Join(dir, "audit"), Seed: 1, KeepYesNo: true, // copy and siblings are yes/no
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
					if r.Verdict == "false alarm" || r.Verdict == "missed" {
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
