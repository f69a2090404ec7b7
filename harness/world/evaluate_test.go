package world

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/run"
)

// writeItems writes a planned world's items.jsonl into dir.
func writeItems(t *testing.T, w *World, dir string) string {
	t.Helper()
	var b bytes.Buffer
	for _, it := range w.Items {
		line, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(dir, ItemsFile)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAuditFindsThePlantedTextShortcuts audits two worlds (other seeds,
// sizes and durations) at the levels that need no video and checks the
// audit of the auditor: every family planted at the option, text or pool
// level is caught exactly there, nothing is caught below its level or where
// nothing was planted, and the video families are reported as not run.
func TestAuditFindsThePlantedTextShortcuts(t *testing.T) {
	for _, opt := range []Options{
		{Seed: 1},
		{Seed: 2, Videos: 130, MinDuration: 5, MaxDuration: 60},
	} {
		w, err := Plan(opt)
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
		ev, err := Evaluate(w.Truth, res.Cards)
		if err != nil {
			t.Fatal(err)
		}
		var table strings.Builder
		ev.WriteText(&table)
		t.Logf("seed %d:\n%s", opt.Seed, table.String())
		if ev.Planted != 4 || ev.Recalled != 4 || ev.Recall != 1 {
			t.Errorf("seed %d: recalled %d of %d planted families, want 4 of 4", opt.Seed, ev.Recalled, ev.Planted)
		}
		if ev.FalseAlarms != 0 {
			t.Errorf("seed %d: %d false alarms", opt.Seed, ev.FalseAlarms)
		}
		want := map[string]string{"option-artifact": "caught", "text-leak": "caught", "copy": "caught", "siblings": "caught",
			"single-frame": "not run", "some-frames": "not run", "window": "not run", "order": "survived", "clean": "survived"}
		for _, r := range ev.Families {
			if r.Verdict != want[r.Family] {
				t.Errorf("seed %d: %s: %s, want %s", opt.Seed, r.Family, r.Verdict, want[r.Family])
			}
		}
	}
}

// TestEvaluateVerdicts checks each verdict on hand-made cards.
func TestEvaluateVerdicts(t *testing.T) {
	opt, pool := harness.LevelOption, harness.LevelPool
	truth := &Truth{Families: []FamilyTruth{
		{Name: "a", Benchmark: "world-a", Expected: &pool},
		{Name: "b", Benchmark: "world-b", Expected: &pool},
		{Name: "c", Benchmark: "world-c", Expected: nil},
		{Name: "d", Benchmark: "world-d", Expected: &pool},
		{Name: "e", Benchmark: "world-e", Expected: nil},
	}}
	lr := func(eps float64, sig bool) *metrics.LevelResult {
		return &metrics.LevelResult{Eps: eps, Attacker: "x", Significant: sig}
	}
	cards := []metrics.Card{
		{Benchmark: "world-a", Chance: 0.25, Levels: metrics.Levels{Option: lr(0, false), Text: lr(0, false), Pool: lr(0.5, true)}},
		{Benchmark: "world-b", Chance: 0.25, Levels: metrics.Levels{Option: lr(0, false), Text: lr(0, false), Pool: lr(0.01, false)}},
		{Benchmark: "world-c", Chance: 0.25, Levels: metrics.Levels{Option: lr(0.3, true), Text: lr(0.3, true), Pool: lr(0.3, true)}},
		{Benchmark: "world-d", Chance: 0.25, Levels: metrics.Levels{Option: lr(0.2, true), Text: lr(0.2, true), Pool: lr(0.2, true)}},
		{Benchmark: "world-e", Chance: 0.5, Levels: metrics.Levels{Option: lr(0, false), Text: lr(0, false), Pool: lr(0, false)}},
	}
	ev, err := Evaluate(truth, cards)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"caught", "missed", "false alarm", "false alarm", "survived"}
	for i, r := range ev.Families {
		if r.Verdict != want[i] {
			t.Errorf("%s: %s, want %s", r.Family, r.Verdict, want[i])
		}
	}
	if ev.Planted != 2 || ev.Recalled != 1 || ev.Recall != 0.5 || ev.FalseAlarms != 2 {
		t.Fatalf("planted %d recalled %d recall %v false alarms %d", ev.Planted, ev.Recalled, ev.Recall, ev.FalseAlarms)
	}
	if ev.Families[0].Accuracy != 0.75 || *ev.Families[3].Caught != opt {
		t.Fatalf("rows %+v", ev.Families)
	}
}
