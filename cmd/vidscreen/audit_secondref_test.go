package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditSecondReferenceAndAttribution runs --reference-model with the
// small vlm_reader listed once and twice. Listed once, each card says the
// second reference needs a second entry; listed twice (the same model),
// the second entry answers the full protocol as the first does, so its
// n and s* are the card's reference_n and reference_accuracy, and fewer
// than 30 items give it no level. Both cards carry the error attribution
// from the records: the reference's errors, their labels' shares summing to
// the errors, and the judge step named as not run.
func TestAuditSecondReferenceAndAttribution(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	type card struct {
		RefAcc *float64 `json:"reference_accuracy"`
		RefN   int      `json:"reference_n"`
		SR     *struct {
			Model    string   `json:"model"`
			Note     string   `json:"note"`
			N        int      `json:"n_ref"`
			Accuracy *float64 `json:"s_star"`
			Level    *string  `json:"breaking_level"`
		} `json:"second_reference"`
		EA *struct {
			Judged   bool   `json:"judged"`
			Note     string `json:"note"`
			Answered int    `json:"answered"`
			Errors   int    `json:"errors"`
			ByTask   []struct {
				Name   string `json:"name"`
				Errors int    `json:"errors"`
			} `json:"by_task"`
			Blind string `json:"blind_reader"`
		} `json:"error_attribution"`
	}
	for _, tt := range []struct {
		name, models string
		second       bool
	}{{"one entry", modelsDir, false}, {"two entries", twoVLMEntries(t, modelsDir), true}} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			code, _, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", tt.models, "--levels", "option,text", "--reference-model", "--quiet")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			var doc struct {
				Cards []card `json:"cards"`
			}
			b, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
			if err := json.Unmarshal(b, &doc); err != nil || len(doc.Cards) != 1 {
				t.Fatalf("cards.json: %v", err)
			}
			c := doc.Cards[0]
			if c.SR == nil {
				t.Fatal("no second_reference on the card")
			}
			if !tt.second {
				if !strings.Contains(c.SR.Note, "no second vlm_reader entry") || c.SR.N != 0 {
					t.Errorf("one entry: second_reference %+v; want a note that it needs a second entry", c.SR)
				}
			} else if !strings.HasPrefix(c.SR.Model, "vlm_reader#2:") || c.SR.N != c.RefN || c.SR.Accuracy == nil || c.RefAcc == nil || *c.SR.Accuracy != *c.RefAcc || c.SR.Level != nil || !strings.Contains(c.SR.Note, "fewer than 30") {
				t.Errorf("two entries: second_reference %+v; want the first entry's n %d and s* %v, and no level under 30 items", c.SR, c.RefN, c.RefAcc)
			}
			ea := c.EA
			if ea == nil || ea.Judged || !strings.Contains(ea.Note, "no judge role") || ea.Answered != c.RefN || ea.Blind != "blind-reader" {
				t.Fatalf("error_attribution %+v", ea)
			}
			wrong := c.RefN - int(*c.RefAcc*float64(c.RefN)+0.5)
			sum := 0
			for _, l := range ea.ByTask {
				sum += l.Errors
			}
			if ea.Errors != wrong || sum != wrong {
				t.Errorf("error_attribution counts %d errors (%d by task), the reference answered %d wrongly", ea.Errors, sum, wrong)
			}
		})
	}
}
