package screen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// TestYesNoBenchmarkEndToEnd audits a multiple-choice benchmark beside a
// yes/no one (and one yes/no item among the multiple-choice ones) and
// screens the run: by default the yes/no items are set aside before the
// audit, counted on their cards (the yes/no benchmark's card has no
// figures), recorded in config.json, and never reach the funnel; with
// KeepYesNo they are audited as two-option questions and screening keeps
// them in its pool too.
func TestYesNoBenchmarkEndToEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	colours := []string{"red", "blue", "green", "pink"}
	for k := range 40 {
		it := harness.Item{ID: fmt.Sprintf("m%02d", k), Benchmark: "MC", Video: fmt.Sprintf("v%d", k), Question: fmt.Sprintf("What colour is thing %d?", k),
			Options: slices.Clone(colours), Answer: k % 4, Task: "colour"}
		if k == 7 {
			it.Options, it.Answer = []string{"A. Yes", "B. No"}, 0
		}
		line, _ := json.Marshal(it)
		b.Write(append(line, '\n'))
		yn := harness.Item{ID: fmt.Sprintf("y%02d", k), Benchmark: "YN", Video: fmt.Sprintf("w%d", k), Question: fmt.Sprintf("Is thing %d there?", k),
			Options: []string{"yes", "no"}, Answer: k % 2, Task: "exists"}
		line, _ = json.Marshal(yn)
		b.Write(append(line, '\n'))
	}
	items := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(items, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	levels := []harness.Level{harness.LevelOption, harness.LevelText, harness.LevelPool}
	for _, keep := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprint("run-", keep))
		res, err := run.Audit(context.Background(), run.Options{Items: []string{items}, Out: out, Seed: 3, Levels: levels, KeepYesNo: keep})
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: 39, true: 80}[keep]
		if res.Items != want || len(res.Cards) != 2 {
			t.Fatalf("keep %v: %d items, %d cards; want %d items, 2 cards", keep, res.Items, len(res.Cards), want)
		}
		mc, yn := res.Cards[0], res.Cards[1]
		switch {
		case !keep && (mc.N != 39 || mc.SetAside[harness.YesNoReason] != 1 || mc.YesNoOnly || mc.Levels.Option == nil || mc.DuplicatesRemoved == nil || *mc.DuplicatesRemoved != 0):
			t.Errorf("MC card: n %d, set aside %v, yes/no only %v, option level %v, duplicates %v", mc.N, mc.SetAside, mc.YesNoOnly, mc.Levels.Option, mc.DuplicatesRemoved)
		case !keep && (!yn.YesNoOnly || yn.N != 0 || yn.SetAside[harness.YesNoReason] != 40 || yn.Levels.Option != nil || len(yn.Attackers) != 0):
			t.Errorf("YN card: %+v; want a yes/no-only card of 40 set aside", yn)
		case keep && (mc.N != 40 || yn.N != 40 || yn.YesNoOnly || yn.Chance != 0.5 || mc.SetAside != nil):
			t.Errorf("kept: MC n %d, YN n %d, chance %v, yes/no only %v", mc.N, yn.N, yn.Chance, yn.YesNoOnly)
		}
		var file struct {
			Config rundir.Config `json:"config"`
		}
		cj, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
		if err := json.Unmarshal(cj, &file); err != nil {
			t.Fatal(err)
		}
		if wantCfg := map[bool]string{false: harness.YesNoSetAside, true: harness.YesNoKept}[keep]; file.Config.YesNo != wantCfg || file.Config.Dedup != harness.DedupRule {
			t.Errorf("keep %v: config yes_no %q, duplicates_before_audit %q", keep, file.Config.YesNo, file.Config.Dedup)
		}
		md, _ := os.ReadFile(filepath.Join(out, rundir.CardsMarkdown))
		if !keep && !strings.Contains(string(md), "Every one of its 40 items is a bare yes/no pair") {
			t.Errorf("cards.md does not say YN is yes/no only:\n%s", md)
		}
		in, err := screen.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		s, err := screen.Compute(in, screen.Options{Attackers: []string{"fixed-position"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Rows) != want || s.KeepYesNo != keep || slices.Contains(s.Funnel, screen.StepYesNo) {
			t.Errorf("keep %v: %d rows, keep %v, funnel %v", keep, len(s.Rows), s.KeepYesNo, s.Funnel)
		}
	}
}
