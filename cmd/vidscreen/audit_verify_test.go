package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/answercheck"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// verdictByMark stands in for a verifier: asked a verification question
// (answercheck.Item), it favours the verdict named by the marked answer's
// letter (A supported, B contradicted, C not verifiable, the rest
// definition dependent), so every verdict follows from the item; any other
// prompt it answers as longestOption does.
func verdictByMark(r *openaitest.Request) openaitest.Reply {
	u := r.User()
	_, after, ok := strings.Cut(u, "Marked answer: ")
	if !ok || after == "" {
		return longestOption(r)
	}
	v := map[byte]string{'A': "A", 'B': "B", 'C': "C"}[after[0]]
	if v == "" {
		v = "D"
	}
	return openaitest.Reply{Top: map[string]float64{v: 0.9, "x": 0.1}}
}

// markedVerdict is the verdict verdictByMark gives an item marked with
// option index answer.
func markedVerdict(answer int) string {
	if answer < 3 {
		return answercheck.Verdicts[answer]
	}
	return answercheck.DefinitionDependent
}

// TestAuditVerifyAnswers runs audit --verify-answers with a served
// vlm_reader (Video-Index's answer verification, compose/verify.py):
// every item whose video decodes gets the verdict its marked answer calls
// for, contradicted and not verifiable ones asked again at 512 frames;
// answer_check.json, the cards' answer_check and the server's requests
// agree; two shards ask the server about their own items, each prompt
// once in all, and their merge asks nothing and writes the same files
// (the cards with the second reference of the second vlm_reader entry);
// screen flags answer_suspect what the verifier does not keep, and select
// leaves those out unless --admit-suspects.
func TestAuditVerifyAnswers(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl", "fake-vl2"}, Answer: verdictByMark})
	defer srv.Close()
	// vlm_reader listed twice: the second entry gives the second reference.
	dir := secondServedVLM(t, servedModels(t, modelsDir, srv.BaseURL(), 8, "vlm_reader"), "fake-vl2")
	tmp := t.TempDir()
	args := []string{"audit", "--items", items, "--videos", root, "--models", dir, "--levels", "option,text", "--verify-answers", "--reference-model", "--workers", "1", "--quiet"}
	whole := filepath.Join(tmp, "whole")
	if code, _, stderr := runWithKey(servedKey, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	verifications := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.Contains(r.User(), "Marked answer: ") {
				n++
			}
		}
		return n
	}
	asked := verifications()
	f, err := answercheck.Read(whole)
	if err != nil || f == nil {
		t.Fatalf("%s: %v, %v", answercheck.FileName, f, err)
	}
	answers := map[string]int{}
	for _, it := range readItemsJSONL(t, items) {
		answers[it.Benchmark+"/"+it.ID] = it.Answer
	}
	if len(f.Items) != len(answers) {
		t.Fatalf("%d verdict records for %d items", len(f.Items), len(answers))
	}
	want, verdicts, suspects := 0, 0, 0
	for _, r := range f.Items {
		if r.First != "" {
			want++
			verdicts++
		}
		if r.Second != "" {
			want++
		}
		if !r.Asked {
			t.Errorf("%s/%s was not asked; the fixture has no ordering question", r.Benchmark, r.ID)
		}
		if !r.Keep {
			suspects++
		}
		if r.First == "" {
			if r.Keep || r.Reason != answercheck.ReasonNoVerdict {
				t.Errorf("%s/%s without a verdict: keep %v, %q; want dropped, no_verdict", r.Benchmark, r.ID, r.Keep, r.Reason)
			}
			continue
		}
		v := markedVerdict(answers[r.Benchmark+"/"+r.ID])
		rechecked := answercheck.Recheck(v)
		if r.First != v || r.Verdict != v || (r.Second != "") != rechecked || (rechecked && r.Frames != answercheck.RecheckFrames) {
			t.Errorf("%s/%s: %+v; want verdict %s at both budgets it is asked at", r.Benchmark, r.ID, r, v)
		}
		if keep, _ := answercheck.Keep(v, 1e9); (v != answercheck.NotVerifiable && r.Keep != keep) || (r.Keep && r.Reason != answercheck.ReasonSupported && r.Reason != answercheck.ReasonNotVerifiableLong) {
			t.Errorf("%s/%s: keep %v (%s) for verdict %s", r.Benchmark, r.ID, r.Keep, r.Reason, v)
		}
	}
	// A recheck whose frames are the first pass's (a clip of at most 32 s)
	// is the same request, answered from the run's store of replies.
	if verdicts == 0 || asked < verdicts || asked > want {
		t.Errorf("the server heard %d verification prompts; the records hold %d first verdicts and %d in all", asked, verdicts, want)
	}
	// The cards count the same.
	var doc struct {
		Cards []struct {
			Benchmark string `json:"benchmark"`
			Check     *struct {
				Ran       bool           `json:"ran"`
				Items     int            `json:"items"`
				Asked     int            `json:"asked"`
				Kept      int            `json:"kept"`
				Suspect   int            `json:"answer_suspect"`
				Reasons   map[string]int `json:"reasons"`
				Verifier  string         `json:"verifier"`
				Rechecked int            `json:"rechecked"`
			} `json:"answer_check"`
			SR *struct {
				Model string `json:"model"`
				N     int    `json:"n_ref"`
			} `json:"second_reference"`
		} `json:"cards"`
	}
	b, _ := os.ReadFile(filepath.Join(whole, rundir.CardsJSON))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Cards) == 0 {
		t.Fatalf("cards.json: %v", err)
	}
	cardSuspects := 0
	for _, c := range doc.Cards {
		if c.Check == nil || !c.Check.Ran || !strings.HasPrefix(c.Check.Verifier, "vlm_reader:") || c.Check.Kept+c.Check.Suspect != c.Check.Items {
			t.Fatalf("%s: answer_check %+v", c.Benchmark, c.Check)
		}
		cardSuspects += c.Check.Suspect
		if c.SR == nil || !strings.HasPrefix(c.SR.Model, "vlm_reader#2:") || c.SR.N == 0 {
			t.Errorf("%s: second_reference %+v; want the second served entry's answers", c.Benchmark, c.SR)
		}
	}
	if cardSuspects != suspects || suspects == 0 {
		t.Errorf("the cards count %d suspects, %s %d (want some)", cardSuspects, answercheck.FileName, suspects)
	}

	// Two shards ask about their own items; the merge asks nothing.
	var shards []string
	sent := 0
	for _, sh := range []string{"0/2", "1/2"} {
		out := filepath.Join(tmp, "shard-"+sh[:1])
		srv.Reset()
		if code, _, stderr := runWithKey(servedKey, append(args, "--out", out, "--shard", sh)...); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", sh, code, stderr)
		}
		sent += verifications()
		shards = append(shards, out)
	}
	if sent != asked {
		t.Errorf("the shards asked %d verification prompts together, the unsharded audit %d", sent, asked)
	}
	srv.Reset()
	merged := filepath.Join(tmp, "merged")
	if code, _, stderr := runWithKey(servedKey, "merge", shards[0], shards[1], "--out", merged, "--quiet"); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the merge sent %d requests, want none", n)
	}
	for _, name := range append([]string{answercheck.FileName}, outputs...) {
		x, err1 := os.ReadFile(filepath.Join(whole, name))
		y, err2 := os.ReadFile(filepath.Join(merged, name))
		if (err1 == nil) != (err2 == nil) || string(x) != string(y) {
			t.Errorf("%s differs between the unsharded audit and the merge (%v, %v)", name, err1, err2)
		}
	}

	// Screening flags them; selection leaves them out unless admitted.
	if code, _, stderr := runCmd("screen", whole); code != 0 {
		t.Fatalf("screen: exit %d\n%s", code, stderr)
	}
	s, err := screen.Read(filepath.Join(whole, "screen"))
	if err != nil {
		t.Fatal(err)
	}
	suspect := map[string]bool{}
	keptSuspects := 0
	for _, r := range s.Rows {
		rec := recordOf(f, r.Benchmark, r.ID)
		if rec == nil || r.AnswerSuspect != rec.Suspect() || r.AnswerCheck != rec.Reason {
			t.Errorf("screen row %s/%s: answer_suspect %v (%q), record %+v", r.Benchmark, r.ID, r.AnswerSuspect, r.AnswerCheck, rec)
		}
		suspect[r.Benchmark+"/"+r.ID] = r.AnswerSuspect
		if r.Kept && r.AnswerSuspect {
			keptSuspects++
		}
	}
	released := func(extra ...string) (n, sus int) {
		out := filepath.Join(t.TempDir(), "release")
		code, _, stderr := runWithKey(servedKey, append([]string{"select", whole, "--out", out, "--budget", "18", "--rounds", "0", "--accept-residual", "--models", dir}, extra...)...)
		if code != 0 {
			t.Fatalf("select %v: exit %d\n%s", extra, code, stderr)
		}
		var lock release.Lockfile
		b, _ := os.ReadFile(filepath.Join(out, release.LockfileFile))
		if err := json.Unmarshal(b, &lock); err != nil {
			t.Fatal(err)
		}
		for _, it := range lock.Items {
			if suspect[it.Source+"/"+it.ID] {
				sus++
			}
		}
		return len(lock.Items), sus
	}
	n, sus := released()
	if sus != 0 {
		t.Errorf("select released %d answer_suspect items of %d, want none", sus, n)
	}
	na, susa := released("--admit-suspects")
	t.Logf("released %d items without suspects, %d with --admit-suspects (%d suspects; %d suspects kept by the funnel)", n, na, susa, keptSuspects)
	if na < n || (keptSuspects > 0 && na == n && susa == 0) {
		t.Errorf("--admit-suspects released %d items (%d suspects), without it %d; %d kept items are suspects", na, susa, n, keptSuspects)
	}
}

// recordOf is f's record of one item, or nil.
func recordOf(f *answercheck.File, benchmark, id string) *answercheck.Record {
	for k := range f.Items {
		if f.Items[k].Benchmark == benchmark && f.Items[k].ID == id {
			return &f.Items[k]
		}
	}
	return nil
}

// readItemsJSONL reads the id, benchmark and answer of each line of an
// items file.
func readItemsJSONL(t *testing.T, path string) []struct {
	ID, Benchmark string
	Answer        int
} {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []struct {
		ID, Benchmark string
		Answer        int
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var it struct {
			ID        string `json:"id"`
			Benchmark string `json:"benchmark"`
			Answer    int    `json:"answer"`
		}
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatal(err)
		}
		out = append(out, struct {
			ID, Benchmark string
			Answer        int
		}{it.ID, it.Benchmark, it.Answer})
	}
	return out
}

// secondServedVLM copies the models folder dir, whose vlm_reader is served
// as fake-vl, with a second vlm_reader entry: the same server's model.
func secondServedVLM(t *testing.T, dir, model string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, models.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	vlm := string(man["roles"]["vlm_reader"])
	second := strings.Replace(vlm, `"fake-vl"`, strconv.Quote(model), 1)
	if second == vlm {
		t.Fatalf("vlm_reader %s does not name fake-vl", vlm)
	}
	man["roles"]["vlm_reader"] = json.RawMessage("[" + vlm + "," + second + "]")
	b, _ = json.Marshal(man)
	two := filepath.Join(t.TempDir(), "two")
	if err := os.CopyFS(two, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(two, models.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return two
}
