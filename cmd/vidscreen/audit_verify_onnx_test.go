package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/answercheck"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditVerifyAnswersONNX runs audit --verify-answers on the small ONNX
// vlm_reader: every item whose video decodes (10 of the fixture's 18) gets a
// verdict, the others none (no_verdict: dropped, as the authors drop an item
// without one), and answer_check.json and cards.json are byte-identical at
// one worker and at four; without --videos the flag is refused (exit 2).
func TestAuditVerifyAnswersONNX(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	var files [][]byte
	for _, workers := range []string{"1", "4"} {
		out := filepath.Join(t.TempDir(), "run")
		code, _, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", modelsDir, "--levels", "option", "--verify-answers", "--workers", workers, "--quiet")
		if code != 0 {
			t.Fatalf("--workers %s: exit %d\n%s", workers, code, stderr)
		}
		f, err := answercheck.Read(out)
		if err != nil || f == nil || len(f.Items) != 18 {
			t.Fatalf("--workers %s: %s: %v (%v)", workers, answercheck.FileName, f, err)
		}
		verdicts := 0
		for _, r := range f.Items {
			if r.Verdict != "" {
				verdicts++
			} else if r.Keep || r.Reason != answercheck.ReasonNoVerdict {
				t.Errorf("%s without a verdict: %+v", r.ID, r)
			}
		}
		if verdicts != 10 {
			t.Errorf("--workers %s: %d items with a verdict, want the 10 whose video decodes", workers, verdicts)
		}
		for _, name := range []string{answercheck.FileName, rundir.CardsJSON} {
			b, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
	}
	if string(files[0]) != string(files[2]) || string(files[1]) != string(files[3]) {
		t.Error("answer_check.json or cards.json differs between --workers 1 and 4")
	}
	code, _, stderr := runAudit("--items", items, "--out", filepath.Join(t.TempDir(), "bad"), "--levels", "option", "--models", modelsDir, "--verify-answers")
	if code != 2 || !strings.Contains(stderr, "--verify-answers needs --videos") {
		t.Errorf("--verify-answers without --videos: exit %d, %s", code, stderr)
	}
}
