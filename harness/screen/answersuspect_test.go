package screen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answercheck"
)

// writeChecks writes an answer_check.json in a new directory with one
// record per item of in, Decide'd from verdicts (by item id; "" none) on a
// 30 s video.
func writeChecks(t *testing.T, in *Input, verdicts map[string]string) string {
	t.Helper()
	f := &answercheck.File{Verifier: "vlm_reader:m", FirstSampler: answercheck.FirstSampler, RecheckSampler: answercheck.RecheckSampler}
	for _, r := range in.Rows {
		it := &harness.Item{ID: r.ID, Benchmark: r.Benchmark, Question: r.Question}
		f.Items = append(f.Items, answercheck.Decide(it, verdicts[r.ID], "", 30))
	}
	dir := t.TempDir()
	w, err := os.Create(filepath.Join(dir, answercheck.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := f.Write(w); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAnswerSuspect: the items the verifier does not keep are
// answer_suspect with their reason, the funnel is what it was without the
// file, each benchmark counts its suspects, and a file that misses an
// item of the run is an error naming the file and the item.
func TestAnswerSuspect(t *testing.T) {
	t.Parallel()
	in := fixture()
	verdicts := map[string]string{}
	for _, r := range in.Rows {
		verdicts[r.ID] = answercheck.Supported
	}
	verdicts["a2"] = answercheck.Contradicted
	verdicts["a3"] = ""
	plain, err := Compute(fixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := readAnswerCheck(writeChecks(t, in, verdicts), in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(in.Notes[len(in.Notes)-1], "2 of ") {
		t.Errorf("note %q: want the 2 suspects", in.Notes[len(in.Notes)-1])
	}
	s, err := Compute(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	suspects := map[string]int{}
	for k, r := range s.Rows {
		want := map[string]string{"a2": "contradicted", "a3": "no_verdict"}[r.ID]
		if r.AnswerSuspect != (want != "") || (want != "" && r.AnswerCheck != want) || (want == "" && r.AnswerCheck != "supported") {
			t.Errorf("%s: answer_suspect %v (%q), want %q", r.ID, r.AnswerSuspect, r.AnswerCheck, want)
		}
		if r.Kept != plain.Rows[k].Kept || r.RemovedBy != plain.Rows[k].RemovedBy {
			t.Errorf("%s: kept %v by %q, without the verification %v by %q: the funnel must not change", r.ID, r.Kept, r.RemovedBy, plain.Rows[k].Kept, plain.Rows[k].RemovedBy)
		}
		if r.AnswerSuspect {
			suspects[r.Benchmark]++
		}
	}
	for _, b := range s.Benchmarks {
		if b.AnswerSuspect == nil || *b.AnswerSuspect != suspects[b.Benchmark] {
			t.Errorf("%s: answer_suspect count %v, want %d", b.Benchmark, b.AnswerSuspect, suspects[b.Benchmark])
		}
	}
	for _, b := range plain.Benchmarks {
		if b.AnswerSuspect != nil {
			t.Errorf("%s: a suspect count without the verification", b.Benchmark)
		}
	}
	short := fixture()
	dir := writeChecks(t, &Input{Rows: short.Rows[1:]}, verdicts)
	if err := readAnswerCheck(dir, short); err == nil || !strings.Contains(err.Error(), "no verdict record for item "+short.Rows[0].ID) {
		t.Errorf("a file without an item of the run: %v", err)
	}
}
