package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
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
	t.Parallel()
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
// VideoHallucer's items are all bare yes/no pairs: they are set aside
// before the sample, and its card says so.
func TestAuditSamplesAndScoresEveryItemOnce(t *testing.T) {
	t.Parallel()
	items := realItems(t, 120)
	out := filepath.Join(t.TempDir(), "run")
	res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 2, Workers: 2, Sample: 80})
	if res.Items != 240 || res.Sampled != 480 {
		t.Fatalf("audited %d of %d items, want 240 of 480", res.Items, res.Sampled)
	}
	for _, c := range res.Cards {
		if c.Benchmark == "VideoHallucer" {
			if !c.YesNoOnly || c.N != 0 || c.SetAside[harness.YesNoReason] != 120 || c.Sample != nil {
				t.Errorf("VideoHallucer: %+v, want a yes/no-only card of 120 set aside", c)
			}
			continue
		}
		if c.DuplicatesRemoved == nil || *c.DuplicatesRemoved != c.Sample.Duplicates {
			t.Errorf("%s: duplicates removed before the audit %v, sample %+v", c.Benchmark, c.DuplicatesRemoved, c.Sample)
		}
		if c.N != 80 || c.Sample == nil || c.Sample.Of != 120 || !strings.Contains(c.Sample.Method, "stratified by task, then group") {
			t.Errorf("%s: n %d, sample %+v", c.Benchmark, c.N, c.Sample)
		}
		// One item per near-duplicate group, each replaced from the 40
		// unsampled items (blog 001).
		if c.Sample != nil && (c.Sample.Replaced != c.Sample.Duplicates || !strings.Contains(c.Sample.Method, "duplicates removed before the audit")) {
			t.Errorf("%s: sample %+v: want every near-duplicate replaced, and said", c.Benchmark, c.Sample)
		}
		t.Logf("%s: %d duplicates removed before the audit, %d replaced", c.Benchmark, c.Sample.Duplicates, c.Sample.Replaced)
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
	b, err := os.ReadFile(filepath.Join(out, rundir.ItemsParquet))
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
		Config    rundir.Config  `json:"config"`
		Cards     []metrics.Card `json:"cards"`
	}
	cj, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if err := json.Unmarshal(cj, &file); err != nil {
		t.Fatal(err)
	}
	if file.Vidscreen != harness.Version || file.Config.Sample != 80 || file.Config.SampleRule != harness.SampleRule || file.Config.Dedup != harness.DedupRule || file.Config.YesNo != harness.YesNoSetAside || file.Config.Seed != 2 || len(file.Config.Items) != 1 || file.Config.Items[0].SHA256 == "" || len(file.Cards) != 4 {
		t.Errorf("cards.json head: %q, config %+v, %d cards", file.Vidscreen, file.Config, len(file.Cards))
	}
	if _, err := os.Stat(filepath.Join(out, rundir.RunJSON)); err != nil {
		t.Errorf("no run.json: %v", err)
	}
}

// TestAuditCrossPoolStore audits benchmark B, whose 40 items repeat the
// questions, options and answers of A's (as IntentQA repeats NExT-QA's),
// with --cross-pool: copy-xpool answers B from A's items in its preloaded
// store (the blog, 001, tables 14-15, superscript c), while copy, whose
// store holds B alone, has nothing to copy; copy-xpool is marked cross_pool
// and no level's eps comes from it.
func TestAuditCrossPoolStore(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	words := []string{"red", "blue", "green", "tall", "small", "quick", "slow", "round", "flat", "old"}
	for _, bench := range []string{"A", "B"} {
		for i := 0; i < 40; i++ {
			q := fmt.Sprintf("why did the %s %s man hold the %s box near clip %d", words[i%10], words[(i/10+3)%10], words[(i*7)%10], i)
			opts := []string{"to " + words[i%10], "to " + words[(i+1)%10], "to " + words[(i+2)%10], "to " + words[(i+3)%10]}
			fmt.Fprintf(&b, `{"id":"%d","benchmark":%q,"video":"v%s%d","question":%q,"options":["%s","%s","%s","%s"],"answer":%d}`+"\n",
				i, bench, bench, i, q, opts[0], opts[1], opts[2], opts[3], (i*3)%4)
		}
	}
	items := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(items, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustAudit(t, Options{Items: []string{items}, Out: filepath.Join(t.TempDir(), "run"), Seed: 1, Workers: 2,
		Levels: []harness.Level{harness.LevelPool}, CrossPool: true})
	for _, c := range res.Cards {
		acc := map[string]metrics.AttackerResult{}
		for _, r := range c.Attackers {
			acc[r.Name] = r
		}
		x, ok := acc["copy-xpool"]
		if !ok || !x.CrossPool || acc["copy"].CrossPool || !acc["knn-vote-xpool"].CrossPool {
			t.Fatalf("%s: attackers %+v: want copy-xpool and knn-vote-xpool marked cross_pool", c.Benchmark, c.Attackers)
		}
		if x.Accuracy < 0.9 || acc["copy"].AbstainShare < 0.9 {
			t.Errorf("%s: copy-xpool accuracy %.3f, copy abstains on %.3f: want the twin benchmark's answers copied across, none within", c.Benchmark, x.Accuracy, acc["copy"].AbstainShare)
		}
		for _, l := range []*metrics.LevelResult{c.Levels.Pool} {
			if l != nil && strings.HasSuffix(l.Attacker, "-xpool") {
				t.Errorf("%s: eps pool from %s: a cross-pool attacker entered a level", c.Benchmark, l.Attacker)
			}
		}
	}
}
