package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/models"
)

// TestAuditExtraLMReaders: a models.json whose lm_reader lists two entries
// (the built model twice) runs the blind test a second time as
// blind-reader#2. The card reports it as diagnostic only, and every level's
// eps, significance and m are those of the run with one entry; screening's
// consensus counts it as the blind test's second model, so an item both
// answer is a shortcut at c = 2, which one entry never reaches.
func TestAuditExtraLMReaders(t *testing.T) {
	t.Parallel()
	needORT(t)
	tmp := t.TempDir()
	one := initModelsDir(t)
	b, err := os.ReadFile(filepath.Join(one, models.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	lm := man["roles"]["lm_reader"]
	man["roles"]["lm_reader"] = json.RawMessage("[" + string(lm) + "," + string(lm) + "]")
	b, _ = json.Marshal(man)
	two := filepath.Join(tmp, "two")
	if err := os.CopyFS(two, os.DirFS(one)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(two, models.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	items := demoSubset(t, 30)
	type card struct {
		Benchmark string                     `json:"benchmark"`
		YesNoOnly bool                       `json:"yes_no_only"`
		Levels    map[string]json.RawMessage `json:"levels"`
		Attackers []struct {
			Name           string  `json:"name"`
			Accuracy       float64 `json:"accuracy"`
			Significant    bool    `json:"significant"`
			DiagnosticOnly bool    `json:"diagnostic_only"`
		} `json:"attackers"`
		VideoDependenceReader string `json:"video_dependence_reader"`
	}
	var cards [2][]card
	var scr [2]*screen.Screen
	for k, dir := range []string{one, two} {
		out := filepath.Join(tmp, "run-"+filepath.Base(dir))
		code, _, stderr := runAudit("--items", items, "--out", out, "--models", dir, "--device", "cpu", "--levels", "option,text", "--workers", "1")
		if code != 0 {
			t.Fatalf("audit with %s: exit %d\n%s", dir, code, stderr)
		}
		var doc struct {
			Cards []card `json:"cards"`
		}
		b, err := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
		if err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Cards) == 0 {
			t.Fatalf("cards.json: %v", err)
		}
		cards[k] = doc.Cards
		md, _ := os.ReadFile(filepath.Join(out, rundir.CardsMarkdown))
		if marked := strings.Contains(string(md), "| blind-reader#2 |") && strings.Contains(string(md), "diagnostic only (no eps, no Holm family)"); marked != (k == 1) {
			t.Errorf("%s: cards.md lists blind-reader#2 as diagnostic only: %v", dir, marked)
		}
		var cfg rundir.Config
		b, _ = os.ReadFile(filepath.Join(out, rundir.ConfigFile))
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		if len(cfg.LMReaderExtra) != k || k == 1 && cfg.LMReaderExtra[0] != cfg.LMReader {
			t.Errorf("%s: config.json lm_reader_extra %q (lm_reader %q)", dir, cfg.LMReaderExtra, cfg.LMReader)
		}
		if code, _, stderr := runCmd("screen", out); code != 0 {
			t.Fatalf("screen %s: exit %d: %s", out, code, stderr)
		}
		if scr[k], err = screen.Read(filepath.Join(out, "screen")); err != nil {
			t.Fatal(err)
		}
	}
	for b := range cards[0] {
		c1, c2 := cards[0][b], cards[1][b]
		if c2.YesNoOnly { // VideoHallucer: set aside, no attacker ran
			continue
		}
		if string(mustJSON(t, c1.Levels)) != string(mustJSON(t, c2.Levels)) || c1.VideoDependenceReader != c2.VideoDependenceReader {
			t.Errorf("%s: levels %s with one lm_reader entry, %s with two", c1.Benchmark, mustJSON(t, c1.Levels), mustJSON(t, c2.Levels))
		}
		var blind, extra *float64
		for _, a := range c2.Attackers {
			switch a.Name {
			case "blind-reader":
				blind = &a.Accuracy
				if a.DiagnosticOnly {
					t.Errorf("%s: blind-reader marked diagnostic only", c2.Benchmark)
				}
			case "blind-reader#2":
				extra = &a.Accuracy
				if !a.DiagnosticOnly || a.Significant {
					t.Errorf("%s: blind-reader#2 diagnostic_only %v, significant %v", c2.Benchmark, a.DiagnosticOnly, a.Significant)
				}
			}
		}
		if blind == nil || extra == nil || *blind != *extra {
			t.Errorf("%s: blind-reader %v, blind-reader#2 %v: the same model must answer alike", c2.Benchmark, blind, extra)
		}
		for k, a := range c1.Attackers {
			if a.Name == "blind-reader#2" || a.Significant != c2.Attackers[slices.IndexFunc(c2.Attackers, func(x struct {
				Name           string  `json:"name"`
				Accuracy       float64 `json:"accuracy"`
				Significant    bool    `json:"significant"`
				DiagnosticOnly bool    `json:"diagnostic_only"`
			}) bool {
				return x.Name == a.Name
			})].Significant {
				t.Errorf("%s: attacker %d %s: its significance changed with a second lm_reader entry (or the one-entry run has #2)", c1.Benchmark, k, a.Name)
			}
		}
	}
	blindModels := func(s *screen.Screen) []string {
		for _, ti := range s.Consensus.Tests {
			if ti.Test == screen.TestBlind {
				var out []string
				for _, m := range ti.Models {
					out = append(out, m.Model+"="+m.Attackers[0])
				}
				return out
			}
		}
		return nil
	}
	if got := blindModels(scr[0]); !slices.Equal(got, []string{"lm_reader=blind-reader"}) {
		t.Errorf("one entry: the blind test's models %v", got)
	}
	if got := blindModels(scr[1]); !slices.Equal(got, []string{"lm_reader=blind-reader", "lm_reader#2=blind-reader#2"}) {
		t.Errorf("two entries: the blind test's models %v", got)
	}
	// The blind test is the only one these levels run: with one model no
	// item reaches c = 2; with the same model twice, c = 2 counts exactly
	// the items c = 1 does, each solved by both.
	all := func(s *screen.Screen) []int { return s.Consensus.Counts[0].Total }
	c1, c2 := all(scr[0]), all(scr[1])
	t.Logf("blind test shortcuts at c = 1, 2, 3: %v with one lm_reader entry, %v with two", c1, c2)
	if c1[1] != 0 || c2[0] != c1[0] || c2[1] != c2[0] || c2[2] != 0 {
		t.Errorf("blind test shortcuts at c = 1, 2, 3: %v with one entry, %v with two", c1, c2)
	}
	if c2[1] == 0 {
		t.Errorf("no item solved by the blind readers: the test shows nothing at c = 2")
	}
	bi := slices.IndexFunc(scr[1].Attackers, func(a screen.Attacker) bool { return a.Name == "blind-reader" })
	xi := slices.IndexFunc(scr[1].Attackers, func(a screen.Attacker) bool { return a.Name == "blind-reader#2" })
	for _, r := range scr[1].Rows {
		if r.Verdicts[bi].Solved != r.Verdicts[xi].Solved || r.Verdicts[bi].Orders != r.Verdicts[xi].Orders {
			t.Errorf("item %s: blind-reader %+v, blind-reader#2 %+v", r.ID, r.Verdicts[bi], r.Verdicts[xi])
		}
		// The consensus counts a model right on the original order (the
		// Video-Oasis rule: plain correctness), whatever its seeded orders.
		if v := r.Verdicts[bi]; v.Scored && !v.Abstained && v.Correct && r.Diagnostics != 2 {
			t.Errorf("item %s: answered correctly by both blind models, %d diagnostic models counted", r.ID, r.Diagnostics)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
