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
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/world/truth"
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
// nothing was planted, and the video families are reported as not run. The
// copy and siblings families are bare yes/no items, which an audit sets
// aside by default: the world is audited with KeepYesNo (--keep-yesno),
// and TestAuditSetsAsideTheYesNoFamilies checks the default.
func TestAuditFindsThePlantedTextShortcuts(t *testing.T) {
	t.Parallel()
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
			Items: []string{writeItems(t, w, dir)}, Out: filepath.Join(dir, "audit"), Seed: 1, KeepYesNo: true,
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
		t.Logf("seed %d:\n%s", opt.Seed, table.String())
		if ev.Planted != 4 || ev.Recalled != 4 || ev.Recall != 1 {
			t.Errorf("seed %d: recalled %d of %d planted families, want 4 of 4", opt.Seed, ev.Recalled, ev.Planted)
		}
		if ev.FalseAlarms != 0 {
			t.Errorf("seed %d: %d false alarms", opt.Seed, ev.FalseAlarms)
		}
		want := map[string]string{"option-artifact": "caught", "text-leak": "caught", "copy": "caught", "siblings": "caught",
			"single-frame": "not run", "some-frames": "not run", "window": "not run", "order": "survived", "clean": "survived",
			"audio": "survived"} // the audio test is no level of the pyramid
		for _, r := range ev.Families {
			if r.Verdict != want[r.Family] {
				t.Errorf("seed %d: %s: %s, want %s", opt.Seed, r.Family, r.Verdict, want[r.Family])
			}
		}
	}
}

// TestAuditSetsAsideTheYesNoFamilies audits a world without KeepYesNo: the
// items truth.json marks yes/no (the copy and siblings families, whole)
// are set aside, their cards say so and hold no figure, and the audit of
// the auditor judges the other families as before, recalling the two
// planted at the option and text levels.
func TestAuditSetsAsideTheYesNoFamilies(t *testing.T) {
	t.Parallel()
	w, err := Plan(Options{Seed: 1})
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
	marked := 0
	for _, it := range w.Truth.Items {
		if it.YesNo {
			marked++
		}
	}
	if marked == 0 || res.Items+marked != len(w.Items) {
		t.Errorf("audited %d items, %d marked yes/no, %d in all", res.Items, marked, len(w.Items))
	}
	for _, c := range res.Cards {
		yn := c.Benchmark == "world-copy" || c.Benchmark == "world-siblings"
		if yn != c.YesNoOnly || yn && (c.N != 0 || c.Levels.Pool != nil) || !yn && c.SetAside != nil {
			t.Errorf("%s: yes/no only %v, n %d, set aside %v", c.Benchmark, c.YesNoOnly, c.N, c.SetAside)
		}
	}
	ev, err := truth.Evaluate(w.Truth, res.Cards)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Planted != 2 || ev.Recalled != 2 || ev.FalseAlarms != 0 {
		t.Errorf("recalled %d of %d planted, %d false alarms; want 2 of 2, none", ev.Recalled, ev.Planted, ev.FalseAlarms)
	}
	for _, r := range ev.Families {
		if yn := r.Family == "copy" || r.Family == "siblings"; yn != (r.Verdict == truth.VerdictYesNo) {
			t.Errorf("%s: %s", r.Family, r.Verdict)
		}
	}
}
