package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// videommeV04Log is a v0.4 Video-MME log of n questions whose replies are
// given: "!!!!!!!!!!!!!!!!" is the broken generation the real
// LLaVA-NeXT-Video log holds twice, which the task parses as "".
func videommeV04Log(t *testing.T, golds, replies []string) string {
	t.Helper()
	var b strings.Builder
	for i, g := range golds {
		pa := replies[i]
		if strings.HasPrefix(pa, "!") {
			pa = ""
		}
		line, err := json.Marshal(map[string]any{
			"doc_id": i, "target": g, "filtered_resps": []any{replies[i]}, "doc_hash": fmt.Sprint(i),
			"input": fmt.Sprintf("<image>\n%s\nWhat happens in scene %d?\nA. A man runs.\nB. A dog sleeps.\nC. A car stops.\nD. A bird sings.\nThe best answer is:", videommeInstruction, i),
			"videomme_perception_score": map[string]any{"question_id": fmt.Sprintf("%03d-1", i+1), "duration": "short", "category": "Knowledge",
				"sub_category": "History", "task_category": "Action Reasoning", "pred_answer": pa, "answer": g, "videoID": fmt.Sprintf("vid%03d", i+1)},
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestReferenceCountsUnparsedRepliesWrong: s* is the accuracy lmms-eval
// reported, its two unparsed replies counted wrong, whether the audit
// reads the log itself or what import wrote from it; the unparsed replies
// are listed.
func TestReferenceCountsUnparsedRepliesWrong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	golds := []string{"A", "B", "C", "D", "A", "B", "C", "D"}
	replies := []string{"A", "B", "!!!!!!!!!!!!!!!!", "D", "!!!!!!!!!!!!!!!!", "B", "A", "D"}
	log := writeTestFile(t, filepath.Join(dir, "20250712_101112_samples_videomme.jsonl"), videommeV04Log(t, golds, replies))
	items := filepath.Join(dir, "videomme.jsonl")
	code, _, stderr := runCmd("import", "lmms-eval", log, "--out", items)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	// 5 right of 8: the tool's own figure, the two unparsed counted wrong.
	if !strings.Contains(stderr, "8 replies, 5 right: accuracy 62.5% with unparsed replies counted wrong; 2 unparsed (no option named): 003-1, 005-1") {
		t.Fatalf("import stderr %q", stderr)
	}
	for _, ref := range []string{log, filepath.Join(dir, "videomme.predictions.jsonl")} {
		out := filepath.Join(t.TempDir(), "run")
		code, stdout, stderr := runAudit("--items", items, "--out", out, "--reference", ref, "--quiet", "--levels", "option")
		if code != 0 {
			t.Fatalf("audit --reference %s: exit %d: %s", ref, code, stderr)
		}
		if s := referenceAccuracy(t, out); s == nil || *s != 0.625 {
			t.Errorf("audit --reference %s: s* %v, want 0.625 as lmms-eval reported\n%s", filepath.Base(ref), s, stdout)
		}
		if !strings.Contains(stderr, "2 unparsed (no option named: counted wrong)") {
			t.Errorf("audit --reference %s: the unparsed replies are not listed: %s", filepath.Base(ref), stderr)
		}
	}
}

// TestReferenceDigitPredNeedsABase: "pred": "0" (a string) is a digit the
// project's layout gives no base for (its integer pred is 0-based): the
// audit refuses it naming both readings unless --index-base says.
func TestReferenceDigitPredNeedsABase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := writeTestFile(t, filepath.Join(dir, "items.jsonl"),
		`{"id":"q1","benchmark":"B","video":"v1","question":"What runs?","options":["a dog","a cat","a cow"],"answer":0,"task":"","duration":null}`+"\n"+
			`{"id":"q2","benchmark":"B","video":"v2","question":"What sleeps?","options":["a dog","a cat","a cow"],"answer":1,"task":"","duration":null}`+"\n")
	ref := writeTestFile(t, filepath.Join(dir, "ref.jsonl"), `{"id":"q1","benchmark":"B","pred":"0"}`+"\n"+`{"id":"q2","benchmark":"B","pred":1}`+"\n")
	code, _, stderr := runAudit("--items", items, "--out", filepath.Join(dir, "run"), "--reference", ref, "--quiet", "--levels", "option")
	if code != 2 || !strings.Contains(stderr, `ref.jsonl:1: field pred: ambiguous option index: "0" is option A ("a dog") counted from 0, no option counted from 1`) {
		t.Errorf("exit %d, stderr %q; want 2 naming both readings", code, stderr)
	}
	out := filepath.Join(dir, "run0")
	code, stdout, stderr := runAudit("--items", items, "--out", out, "--reference", ref, "--quiet", "--levels", "option", "--index-base", "0")
	if s := referenceAccuracy(t, out); code != 0 || s == nil || *s != 1 {
		t.Errorf("--index-base 0: exit %d, s* %v, want 1:\n%s\n%s", code, s, stdout, stderr)
	}
}

// referenceAccuracy is the one card's s* in the run at out.
func referenceAccuracy(t *testing.T, out string) *float64 {
	t.Helper()
	var env struct {
		Cards []struct {
			Reference *float64 `json:"reference_accuracy"`
		} `json:"cards"`
	}
	b, err := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &env); err != nil || len(env.Cards) != 1 {
		t.Fatalf("cards.json: %v, %d cards", err, len(env.Cards))
	}
	return env.Cards[0].Reference
}
