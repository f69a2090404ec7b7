package run

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// onlyBenchmark keeps the lines of a JSONL file that belong to benchmark b.
func onlyBenchmark(t *testing.T, path, b string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Contains(line, []byte(`"benchmark": "`+b+`"`)) {
			out.Write(line)
		}
	}
	if out.Len() == 0 {
		t.Fatalf("no item of %s in %s", b, path)
	}
	p := filepath.Join(t.TempDir(), "only.jsonl")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCardDoesNotDependOnOtherBenchmarks audits NExT-QA alone and with three
// other benchmarks: its card must be the same but for the fields that
// compare benchmarks. The lexical embedder used to fit its IDF on every text
// of the run, so adding a benchmark moved another's copy, k-NN and
// regression results and its near-duplicate share.
func TestCardDoesNotDependOnOtherBenchmarks(t *testing.T) {
	all := realItems(t, 120)
	alone := onlyBenchmark(t, all, "NExT-QA")
	dir := t.TempDir()
	card := func(items, out string) []byte {
		res := mustAudit(t, Options{Items: []string{items}, Out: filepath.Join(dir, out), Seed: 5, Workers: 2})
		for _, c := range res.Cards {
			if c.Benchmark != "NExT-QA" {
				continue
			}
			// Cross-benchmark fields aside.
			c.CrossBenchmarkDuplicates, c.CrossBenchmarkFlows, c.SharedVideoItems, c.SharedVideoFlows = nil, nil, nil, nil
			b, err := json.MarshalIndent(c, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		t.Fatal("no NExT-QA card")
		return nil
	}
	a, b := card(alone, "alone"), card(all, "all")
	if !bytes.Equal(a, b) {
		t.Errorf("NExT-QA's card depends on the other benchmarks of the run:\nalone:\n%s\nwith others:\n%s", a, b)
	}
	if !bytes.Contains(a, []byte(`"embedder": "lexical-`)) {
		t.Errorf("the card does not name its embedder:\n%s", a)
	}
}

// TestAuditSamplesAndScoresEveryItemOnce runs --sample 80 over 120 items per
// benchmark: each card covers 80 items and says how they were drawn, and in
// items.parquet every prequential attacker scored each item exactly once.
func TestAuditSamplesAndScoresEveryItemOnce(t *testing.T) {
	items := realItems(t, 120)
	out := filepath.Join(t.TempDir(), "run")
	res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 2, Workers: 2, Sample: 80})
	if res.Items != 320 || res.Sampled != 480 {
		t.Fatalf("audited %d of %d items, want 320 of 480", res.Items, res.Sampled)
	}
	for _, c := range res.Cards {
		if c.N != 80 || c.Sample == nil || c.Sample.Of != 120 || !strings.Contains(c.Sample.Method, "stratified by task, then group") {
			t.Errorf("%s: n %d, sample %+v", c.Benchmark, c.N, c.Sample)
		}
		// One item per near-duplicate group, each replaced from the 40
		// unsampled items (blog 001).
		if c.Sample != nil && (c.Sample.Replaced != c.Sample.Duplicates || !strings.Contains(c.Sample.Method, "near-duplicates left")) {
			t.Errorf("%s: sample %+v: want every near-duplicate replaced, and said", c.Benchmark, c.Sample)
		}
		t.Logf("%s: %d near-duplicates left the sample, %d replaced", c.Benchmark, c.Sample.Duplicates, c.Sample.Replaced)
		for _, r := range c.Attackers {
			// The flags are the exact test's, Holm-corrected: a corrected
			// pass is a raw pass, and a raw pass is p <= 0.05.
			if r.N != c.N || r.Significant && !r.SignificantUncorrected || r.SignificantUncorrected != (r.Answered > 0 && r.PValue <= metrics.Alpha) {
				t.Errorf("%s %s: n %d p %v significant %v (uncorrected %v); card n %d", c.Benchmark, r.Name, r.N, r.PValue, r.Significant, r.SignificantUncorrected, c.N)
			}
		}
	}
	type row struct {
		Regression bool `parquet:"regression_scored"`
		Artifact   bool `parquet:"option_artifact_scored"`
	}
	b, err := os.ReadFile(filepath.Join(out, ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[row](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if !r.Regression || !r.Artifact {
			t.Fatalf("row %d never scored: %+v", i, r)
		}
	}
	var file struct {
		Vidscreen string         `json:"vidscreen"`
		Config    Config         `json:"config"`
		Cards     []metrics.Card `json:"cards"`
	}
	cj, _ := os.ReadFile(filepath.Join(out, CardsJSON))
	if err := json.Unmarshal(cj, &file); err != nil {
		t.Fatal(err)
	}
	if file.Vidscreen != harness.Version || file.Config.Sample != 80 || file.Config.SampleRule != harness.SampleRule || file.Config.Seed != 2 || len(file.Config.Items) != 1 || file.Config.Items[0].SHA256 == "" || len(file.Cards) != 4 {
		t.Errorf("cards.json head: %q, config %+v, %d cards", file.Vidscreen, file.Config, len(file.Cards))
	}
	if _, err := os.Stat(filepath.Join(out, RunJSON)); err != nil {
		t.Errorf("no run.json: %v", err)
	}
}
