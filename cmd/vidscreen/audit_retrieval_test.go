package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditRetrievalReaderWorkers audits the demo items at the pool level
// with the built lm_reader of `models init`: retrieval-reader runs on it
// (Video-Index 3.4), sits on the pool level's card as one of its attackers
// (not diagnostic only, not cross-pool), and the outputs are byte-identical
// at --workers 1 and 4.
func TestAuditRetrievalReaderWorkers(t *testing.T) {
	t.Parallel()
	needORT(t)
	tmp := t.TempDir()
	modelsDir := initModelsDir(t)
	items := demoSubset(t, 40)
	runDir := func(workers string) string {
		out := filepath.Join(tmp, "w"+workers)
		if code, _, stderr := runAudit("--items", items, "--out", out, "--models", modelsDir, "--levels", "option,text,pool", "--workers", workers, "--quiet"); code != 0 {
			t.Fatalf("audit --workers %s: exit %d\n%s", workers, code, stderr)
		}
		return out
	}
	one, four := runDir("1"), runDir("4")
	// The text levels' outputs (no frame embeddings without videos).
	for _, name := range []string{rundir.ConfigFile, rundir.CardsJSON, rundir.CardsMarkdown, rundir.IndexHTML, rundir.ItemsParquet, rundir.DuplicatesFile, rundir.QuestionNPY} {
		x, err1 := os.ReadFile(filepath.Join(one, name))
		y, err2 := os.ReadFile(filepath.Join(four, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between --workers 1 and 4 (%v, %v)", name, err1, err2)
		}
	}
	var doc struct {
		Cards []struct {
			YesNoOnly bool   `json:"yes_no_only"`
			Benchmark string `json:"benchmark"`
			Attackers []struct {
				Name           string `json:"name"`
				Level          string `json:"level"`
				N              int    `json:"n"`
				LearnsFromPool bool   `json:"learns_from_pool"`
				CrossPool      bool   `json:"cross_pool"`
				DiagnosticOnly bool   `json:"diagnostic_only"`
			} `json:"attackers"`
		} `json:"cards"`
	}
	b, err := os.ReadFile(filepath.Join(one, rundir.CardsJSON))
	if err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Cards) == 0 {
		t.Fatalf("cards.json: %v", err)
	}
	for _, c := range doc.Cards {
		if c.YesNoOnly { // set aside as bare yes/no items: no attacker ran
			continue
		}
		found := false
		for _, a := range c.Attackers {
			if a.Name != "retrieval-reader" {
				continue
			}
			found = true
			if a.Level != "pool" || !a.LearnsFromPool || a.CrossPool || a.DiagnosticOnly || a.N == 0 {
				t.Errorf("%s: retrieval-reader %+v: want a pool attacker that learns from its pool, scored", c.Benchmark, a)
			}
		}
		if !found {
			t.Errorf("%s: no retrieval-reader on the card", c.Benchmark)
		}
	}
}
