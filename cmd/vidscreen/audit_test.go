package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// demoSubset writes the first n lines of each embedded default file (real
// annotations) to one JSONL file.
func demoSubset(t *testing.T, n int) string {
	t.Helper()
	b, err := demo.Head(n)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runAudit(args ...string) (code int, stdout, stderr string) {
	return runCmd(append([]string{"audit"}, args...)...)
}

func TestAuditExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x", "benchmark": "B", "video": "v", "question": "q", "options": ["a", "b"], "answer": 5}`+"\n"), 0o644)
	items := demoSubset(t, 20)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no --out", []string{"--items", items}, 2, "--out DIR is required"},
		{"an unknown level", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--levels", "option,vibes"}, 2, `unknown level "vibes"`},
		{"a video level", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--levels", "frame"}, 2, "need --videos ROOT and --models DIR"},
		{"videos without models", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--videos", dir}, 2, "--videos ROOT needs --models DIR"},
		{"no frames", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--frames", "0"}, 2, "--frames must be from 1 to 1024, got 0"},
		{"too many permutations", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--permutations", "65"}, 2, "--permutations 65: want 0 (no permutation audit) to 64"},
		{"a failure share over 1", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--max-server-failures", "1.5"}, 2, "--max-server-failures 1.5: want a share from 0 to 1"},
		{"a negative failure share", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--max-server-failures", "-0.1"}, 2, "--max-server-failures -0.1: want a share from 0 to 1"},
		{"a stray argument", []string{"--out", filepath.Join(dir, "a"), items}, 2, "unexpected arguments"},
		{"an answer out of range", []string{"--items", items, "--items", bad, "--out", filepath.Join(dir, "b")}, 2, bad + ":1: field answer: answer out of range"},
		{"a missing file", []string{"--items", filepath.Join(dir, "nope.jsonl"), "--out", filepath.Join(dir, "c")}, 2, "nope.jsonl: no such file or directory"},
		{"an existing file as --out", []string{"--items", items, "--out", items}, 2, "is a file; --out names a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runAudit(tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
	for _, d := range []string{"a", "b", "c"} {
		if _, err := os.Stat(filepath.Join(dir, d)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a refused run created %s", d)
		}
	}
	out := filepath.Join(dir, "ok")
	code, stdout, stderr := runAudit("--items", items, "--out", out, "--workers", "2", "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, b := range []string{"NExT-QA", "Social-IQ-2.0", "STAR", "VideoHallucer", "eps pool", "cards.json"} {
		if !strings.Contains(stdout, b) {
			t.Errorf("summary lacks %q:\n%s", b, stdout)
		}
	}
	for _, stage := range []string{"read", "embed", "attack", "duplicates", "cards", "write"} {
		if !strings.Contains(stderr, `msg="stage start" stage=`+stage+" ") || !strings.Contains(stderr, `msg="stage done" stage=`+stage+" ") {
			t.Errorf("stderr (not a terminal) lacks the start and end lines of stage %s:\n%s", stage, stderr)
		}
	}
	code, _, stderr = runAudit("--items", items, "--out", out, "--seed", "6")
	if code != 2 || !strings.Contains(stderr, "different configuration ([seed] differ)") {
		t.Errorf("resuming with another seed: exit %d, %q", code, stderr)
	}
}

func TestAuditProgressLogs(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 10)
	dir := t.TempDir()
	code, _, stderr := runAudit("--items", items, "--out", filepath.Join(dir, "q"), "--quiet")
	if code != 0 || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	out := filepath.Join(dir, "j")
	code, _, stderr = runAudit("--items", items, "--out", out, "--log-format", "json", "--levels", "option")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var attackDone map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("--log-format json wrote a line that is not JSON: %q", line)
		}
		if rec["msg"] == "stage done" && rec["stage"] == "attack" {
			attackDone = rec
		}
	}
	// The attack counts items, not item x attacker x order: 30, as
	// VideoHallucer's 10 are bare yes/no pairs, set aside.
	if attackDone == nil || attackDone["done"] != 30.0 || attackDone["total"] != 30.0 || attackDone["unit"] != "items" {
		t.Errorf("attack's end record %v, want 30/30 items", attackDone)
	}
	code, _, stderr = runAudit("--items", items, "--out", out, "--levels", "option")
	if code != 0 || !strings.Contains(stderr, `msg="resuming: found stored predictions"`) || !strings.Contains(stderr, "units_left=0") {
		t.Errorf("a resumed run: exit %d, stderr %s; want it to say what it found stored", code, stderr)
	}
	// A models directory without text_embed draws a warning: with
	// --log-format json it is a JSON record too, like every other line.
	needORT(t)
	mdir := writeTinyModels(t, models.RoleDupConfirm)
	code, _, stderr = runAudit("--items", items, "--out", filepath.Join(dir, "m"), "--models", mdir, "--log-format", "json", "--levels", "option")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	warned := false
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("--log-format json with --models wrote a line that is not JSON: %q", line)
		}
		if rec["level"] == "WARN" && strings.Contains(fmt.Sprint(rec["msg"]), "no text_embed role") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no JSON warning about the missing text_embed role:\n%s", stderr)
	}
	code, _, stderr = runAudit("--items", items, "--out", filepath.Join(dir, "x"), "--log-format", "yaml")
	if code != 2 || !strings.Contains(stderr, "--log-format") {
		t.Errorf("--log-format yaml: exit %d, %q; want 2", code, stderr)
	}
}

func TestAuditPicksFilesBenchmarksAndLimits(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 8)
	glob := filepath.Join(filepath.Dir(items), "*.jsonl")
	out := filepath.Join(t.TempDir(), "o")
	code, stdout, stderr := runAudit("--items", glob, "--out", out, "--benchmarks", "STAR,NExT-QA", "--limit", "3", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "STAR") || !strings.Contains(stdout, "NExT-QA") || strings.Contains(stdout, "VideoHallucer") || !strings.Contains(stdout, "\n6 items;") {
		t.Errorf("want 3 items of STAR and NExT-QA only:\n%s", stdout)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a glob matching nothing", []string{"--items", filepath.Join(filepath.Dir(items), "*.parquet")}, "no file matches"},
		{"an unknown benchmark", []string{"--items", items, "--benchmarks", "STAR,Nope"}, `no items of benchmark ["Nope"]`},
		{"a negative limit", []string{"--items", items, "--limit", "-1"}, "--limit must be 0 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runAudit(append(tt.args, "--out", filepath.Join(t.TempDir(), "o"))...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestAuditReadsOtherToolsPredictions audits real items with a reference
// in lmms-eval's samples layout and an evaluated model in a VLMEvalKit
// table (see harness/predictions for both layouts), one row of which
// matches no item.
func TestAuditReadsOtherToolsPredictions(t *testing.T) {
	t.Parallel()
	path := demoSubset(t, 12)
	items, err := harness.ReadFiles(context.Background(), []string{path}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var samples, table bytes.Buffer
	table.WriteString("index\tvideo\tquestion\tcandidates\tanswer\tprediction\n")
	for i, it := range items {
		doc, _ := json.Marshal(map[string]any{"question_id": it.ID, "question": it.Question, "candidates": it.Options, "answer": it.Answer})
		fmt.Fprintf(&samples, `{"doc_id": %d, "doc": %s, "target": %d, "resps": [["%s"]], "filtered_resps": ["%s"], "doc_hash": "h"}`+"\n", i, doc, it.Answer, answerLetter(it.Answer), answerLetter(it.Answer))
		reply := it.Options[it.Answer] // the model is right on even items
		if i%2 == 1 {
			reply = it.Options[(it.Answer+1)%len(it.Options)]
		}
		cands, _ := json.Marshal(it.Options)
		fmt.Fprintf(&table, "%d\t%s\t%s\t%s\t%s\t%s\n", i, it.Video, it.Question, cands, answerLetter(it.Answer), reply)
	}
	table.WriteString("999\tv\tA question no item asks?\t[\"x\", \"y\"]\tA\tA\n")
	ref := filepath.Join(dir, "samples_mytask_2024-06-01T00-00-00.000000.jsonl")
	model := filepath.Join(dir, "MyModel_mytask.tsv")
	os.WriteFile(ref, samples.Bytes(), 0o644)
	os.WriteFile(model, table.Bytes(), 0o644)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := runAudit("--items", path, "--out", out, "--reference", ref, "--predictions", "mine="+model, "--quiet", "--levels", "option")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"(lmms-eval): 48 rows, 48 matched (48 by id", "(vlmevalkit): 49 rows, 48 matched (0 by id, 48 by question text and options)", "1 unmatched: " + model + ":50"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "mine on STAR: accuracy 0.500 over 12 items") {
		t.Errorf("summary lacks the model's line:\n%s", stdout)
	}
	var env struct {
		Cards []struct {
			Benchmark string   `json:"benchmark"`
			YesNoOnly bool     `json:"yes_no_only"`
			Reference *float64 `json:"reference_accuracy"`
			Models    []struct {
				Name     string   `json:"name"`
				Residual *float64 `json:"residual"`
			} `json:"models"`
		} `json:"cards"`
	}
	b, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if err := json.Unmarshal(b, &env); err != nil {
		// cards.json was a bare list before its envelope.
		if err := json.Unmarshal(b, &env.Cards); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range env.Cards {
		if c.YesNoOnly { // VideoHallucer: set aside, no figures
			continue
		}
		if c.Reference == nil || *c.Reference != 1 || len(c.Models) != 1 || c.Models[0].Name != "mine" || c.Models[0].Residual == nil {
			t.Errorf("card %s: s* %v, models %+v", c.Benchmark, c.Reference, c.Models)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--predictions", "nofile"}, "want NAME=FILE"},
		{[]string{"--predictions", "a=" + model, "--predictions", "a=" + model}, `model name "a" given twice`},
		{[]string{"--predictions", "a=" + filepath.Join(dir, "none.xlsx")}, "none.xlsx: no such file"},
	} {
		code, _, stderr := runAudit(append([]string{"--items", path, "--out", filepath.Join(t.TempDir(), "o")}, tt.args...)...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func answerLetter(i int) string { return string(rune('A' + i)) }

func TestAuditHelpDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runAudit("--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"--items", "--out", "--levels", "--reference", "--predictions", "--limit", "--benchmarks", "--log-format", "--quiet", "--seed", "--workers", "--video-root", "Exit status",
		"Input:", "Levels:", "Models and devices:", "Output:", "Run control:"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("help lacks %s", f)
		}
	}
}

// TestAuditSurvivesSIGKILL builds the real binary, kills `vidscreen audit`
// with SIGKILL at several moments of one run directory (while embedding,
// then after a quarter, three fifths and nearly all of the records), resumes
// each time, and checks that the outputs are byte-identical to those of an
// uninterrupted run.
func TestAuditSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary several times")
	}
	tmp := t.TempDir()
	bin := binary(t)
	items := demoSubset(t, 250) // 1,000 real items over four benchmarks
	args := func(out string) []string {
		return []string{"audit", "--items", items, "--out", out, "--workers", "2", "--seed", "11"}
	}
	whole := filepath.Join(tmp, "whole")
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	st, err := os.Stat(filepath.Join(whole, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	full := st.Size()

	cut := filepath.Join(tmp, "cut")
	kills := 0
	for _, frac := range []float64{-1, 0.25, 0.6, 0.97} {
		cmd := exec.Command(bin, args(cut)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		start := time.Now()
		var killed bool
	wait:
		for {
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("run before kill at %.2f failed: %v", frac, err)
				}
				break wait
			case <-time.After(time.Millisecond):
			}
			ready := time.Since(start) > 30*time.Millisecond
			if frac >= 0 {
				st, err := os.Stat(filepath.Join(cut, rundir.RecordsFile))
				ready = err == nil && float64(st.Size()) >= frac*float64(full)
			}
			if ready {
				cmd.Process.Signal(syscall.SIGKILL)
				err := <-exited
				killed = err != nil // nil: it finished before the signal landed
				break wait
			}
		}
		if killed {
			kills++
		}
		t.Logf("kill at %.2f of the records after %v: killed=%v", frac, time.Since(start).Round(time.Millisecond), killed)
	}
	if kills < 2 {
		t.Fatalf("only %d of 4 kills landed while the run was going", kills)
	}
	if out, err := exec.Command(bin, args(cut)...).CombinedOutput(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	for _, name := range []string{rundir.ConfigFile, rundir.CardsJSON, rundir.CardsMarkdown, rundir.IndexHTML, rundir.ItemsParquet, rundir.DuplicatesFile} {
		a, err := os.ReadFile(filepath.Join(whole, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(cut, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s after %d kills differs from the uninterrupted run's", name, kills)
		}
	}
}

// bertTokenizerFile is the real BERT uncased WordPiece file beside the
// repository (../shared/data/tokenizers), else the repository's cut-down copy
// of it (models/testdata/README.md) on a machine without the shared data.
func bertTokenizerFile() string {
	if full, err := shareddata.Lookup("tokenizers", "bert_wordpiece_tokenizer.json"); err == nil {
		return full
	}
	return smallBERT
}

// encoderRole is one text encoder of a test models directory.
type encoderRole struct {
	seed    uint64
	pooling string
	maxLen  int
}

// writeEncoderModels writes a models directory with a TinyBERT text_embed
// role (real export names, random weights of the given seed) and, when
// confirm is not nil, a dup_confirm role, both with the BERT tokenizer.
func writeEncoderModels(t *testing.T, embed encoderRole, confirm *encoderRole) string {
	t.Helper()
	dir := t.TempDir()
	tok, err := os.ReadFile(bertTokenizerFile())
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]any{}
	add := func(role models.Role, r encoderRole) {
		cfg := onnxbuild.TinyBERT
		cfg.Seed = r.seed
		sub := filepath.Join(dir, string(role))
		if err := onnxbuild.NewEncoder(cfg).WriteDir(sub); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), tok, 0o644); err != nil {
			t.Fatal(err)
		}
		roles[string(role)] = map[string]any{"dir": string(role), "pooling": r.pooling, "max_length": r.maxLen}
	}
	add(models.RoleTextEmbed, embed)
	if confirm != nil {
		add(models.RoleDupConfirm, *confirm)
	}
	m, _ := json.Marshal(map[string]any{"roles": roles})
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), m, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dupRow is a row of duplicates.parquet when a second model confirmed the
// pairs.
type dupRow struct {
	AID        string  `parquet:"a_id"`
	ABenchmark string  `parquet:"a_benchmark"`
	BID        string  `parquet:"b_id"`
	BBenchmark string  `parquet:"b_benchmark"`
	Sim        float32 `parquet:"similarity"`
	ConfirmSim float32 `parquet:"confirm_similarity"`
}

func readDupRows(t *testing.T, path string) []dupRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[dupRow](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// expectedPairs recomputes, outside the run, the near-duplicate pairs of an
// items file with the models of dir: those both encoders put at cosine >=
// 0.90, and per benchmark the pairs the second rejected.
func expectedPairs(t *testing.T, itemsFile, dir string) (kept map[[2]string][2]float32, removed map[string]int) {
	t.Helper()
	rt, err := models.NewRuntime(models.RuntimeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := onnxembed.OpenModels(rt, m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	items, err := harness.ReadFiles(context.Background(), []string{itemsFile}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The audit sets bare yes/no items aside before anything is embedded.
	items, _ = harness.SetAsideYesNo(items)
	// Near-duplicates compare questions alone (001).
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = textembed.QuestionText(it)
	}
	e1, err := ms.Embed.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := ms.Confirm.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	cos := func(m *kernels.Matrix, i, j int) float64 {
		var s float64
		for k := range m.Cols {
			s += float64(m.Row(i)[k]) * float64(m.Row(j)[k])
		}
		return s
	}
	kept, removed = map[[2]string][2]float32{}, map[string]int{}
	for i := range items {
		for j := i + 1; j < len(items); j++ {
			c1 := cos(e1, i, j)
			if c1 < 0.90-1e-4 {
				continue
			}
			if math.Abs(c1-0.90) < 1e-4 {
				t.Fatalf("items %d and %d sit at the threshold (%v): the comparison would depend on rounding", i, j, c1)
			}
			c2 := cos(e2, i, j)
			key := [2]string{items[i].Benchmark + "/" + items[i].ID, items[j].Benchmark + "/" + items[j].ID}
			if c2 >= 0.90 {
				kept[key] = [2]float32{float32(c1), float32(c2)}
				continue
			}
			removed[items[i].Benchmark]++
			if items[j].Benchmark != items[i].Benchmark {
				removed[items[j].Benchmark]++
			}
		}
	}
	return kept, removed
}

// checkConfirmedDuplicates checks a run's duplicates.parquet and cards.json
// against the pairs recomputed outside the run.
func checkConfirmedDuplicates(t *testing.T, out string, kept map[[2]string][2]float32, removed map[string]int) {
	t.Helper()
	rows := readDupRows(t, filepath.Join(out, rundir.DuplicatesFile))
	if len(rows) != len(kept) {
		t.Errorf("%d pairs in duplicates.parquet, %d confirmed by both models", len(rows), len(kept))
	}
	for _, r := range rows {
		want, ok := kept[[2]string{r.ABenchmark + "/" + r.AID, r.BBenchmark + "/" + r.BID}]
		if !ok {
			t.Errorf("pair %s/%s - %s/%s is not confirmed by both models", r.ABenchmark, r.AID, r.BBenchmark, r.BID)
			continue
		}
		if math.Abs(float64(r.Sim-want[0])) > 1e-5 || math.Abs(float64(r.ConfirmSim-want[1])) > 1e-5 || r.Sim < 0.9 || r.ConfirmSim < 0.9 {
			t.Errorf("pair %s - %s: similarities %v, %v; recomputed %v", r.AID, r.BID, r.Sim, r.ConfirmSim, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cards []struct {
			Benchmark   string `json:"benchmark"`
			Unconfirmed *int   `json:"unconfirmed_duplicate_pairs"`
			YesNoOnly   bool   `json:"yes_no_only"`
		} `json:"cards"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Cards {
		if c.YesNoOnly { // set aside before the audit: no pairs
			continue
		}
		if c.Unconfirmed == nil || *c.Unconfirmed != removed[c.Benchmark] {
			t.Errorf("%s: card says confirmation removed %v pairs, recomputed %d", c.Benchmark, c.Unconfirmed, removed[c.Benchmark])
		}
	}
}

func TestAuditWithModels(t *testing.T) {
	t.Parallel()
	needORT(t)
	items := demoSubset(t, 8)
	dir := writeEncoderModels(t, encoderRole{1, "cls", 512}, &encoderRole{2, "mean", 512})
	tmp := t.TempDir()
	var outs []string
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(tmp, "w"+w)
		code, stdout, stderr := runAudit("--items", items, "--out", out, "--models", dir, "--device", "cpu", "--workers", w)
		if code != 0 {
			t.Fatalf("--workers %s: exit %d: %s", w, code, stderr)
		}
		if !strings.Contains(stdout, "VideoHallucer") {
			t.Errorf("summary lacks the benchmarks:\n%s", stdout)
		}
		outs = append(outs, out)
	}
	for _, name := range []string{rundir.ConfigFile, rundir.CardsJSON, rundir.CardsMarkdown, rundir.IndexHTML, rundir.ItemsParquet, rundir.DuplicatesFile} {
		a, err1 := os.ReadFile(filepath.Join(outs[0], name))
		b, err2 := os.ReadFile(filepath.Join(outs[1], name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between --workers 1 and 2 (%v, %v)", name, err1, err2)
		}
	}
	var cfg rundir.Config
	b, _ := os.ReadFile(filepath.Join(outs[0], rundir.ConfigFile))
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{cfg.Embedder, cfg.Confirm} {
		if !strings.HasPrefix(name, "onnx:") || !strings.Contains(name, "model.onnx=sha256:") || !strings.Contains(name, "tokenizer.json=sha256:") {
			t.Errorf("config.json names an embedder %q without the hashes of its files", name)
		}
	}
	kept, removed := expectedPairs(t, items, dir)
	checkConfirmedDuplicates(t, outs[0], kept, removed)

	code, _, stderr := runAudit("--items", items, "--out", outs[0], "--models", dir)
	if code != 0 {
		t.Errorf("resuming with the same models: exit %d, %s", code, stderr)
	}
	other := writeEncoderModels(t, encoderRole{3, "cls", 512}, &encoderRole{2, "mean", 512})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"other models", []string{"--models", other}, "([embedder] differ)"},
		{"no models", nil, "([confirm_embedder embedder] differ)"},
		{"no dup_confirm", []string{"--models", writeEncoderModels(t, encoderRole{1, "cls", 512}, nil)}, "([confirm_embedder] differ)"},
	} {
		t.Run("resume with "+tt.name+" is refused", func(t *testing.T) {
			code, _, stderr := runAudit(append([]string{"--items", items, "--out", outs[0]}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestAuditConfirmationRemovesPairs builds a case where the two models
// disagree: the first reads only [CLS], the first word and [SEP]
// (max_length 3), so every item starting with the same word has the same
// row; the second reads the whole text. An exact copy stays a pair under
// both; items that merely share a first word are found by the first model
// and rejected by the second.
func TestAuditConfirmationRemovesPairs(t *testing.T) {
	t.Parallel()
	needORT(t)
	item := func(id, bench, q string, opts ...string) string {
		b, _ := json.Marshal(map[string]any{"id": id, "benchmark": bench, "video": "v" + id, "question": q, "options": opts, "answer": 0})
		return string(b) + "\n"
	}
	lines := item("a1", "A", "why did the boy in red run towards the door at the end?", "he heard a knock", "to catch the cat", "the bell rang") +
		item("a2", "A", "why did the boy in red run towards the door at the end?", "he heard a knock", "to catch the cat", "the bell rang") +
		item("a3", "A", "why 17 42 99 ?", "0", "1") +
		item("b1", "B", "how many people are sitting at the table in the kitchen?", "three", "four", "five") +
		item("b2", "B", "what colour is the car parked outside the house?", "red", "blue", "green", "white")
	items := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(items, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeEncoderModels(t, encoderRole{1, "cls", 3}, &encoderRole{2, "mean", 512})
	out := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runAudit("--items", items, "--out", out, "--models", dir, "--levels", "option"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	kept, removed := expectedPairs(t, items, dir)
	if _, ok := kept[[2]string{"A/a1", "A/a2"}]; !ok {
		t.Errorf("the exact copy a1-a2 is not a confirmed pair: %v", kept)
	}
	if removed["A"] == 0 {
		t.Fatalf("the second model rejected no pair (kept %v): the case no longer tests confirmation", kept)
	}
	checkConfirmedDuplicates(t, out, kept, removed)
	md, _ := os.ReadFile(filepath.Join(out, rundir.CardsMarkdown))
	if !strings.Contains(string(md), "confirmation by a second model removed") {
		t.Errorf("cards.md does not say what confirmation removed:\n%s", md)
	}
}

func TestAuditModelsFlags(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 5)
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"--device-memory without --models", []string{"--device", "cuda", "--device-memory", "1GiB"}, "--device-memory needs --models"},
		{"a bad device without --models", []string{"--device", "tpu"}, "want cpu, cpu:N, cuda"},
		{"a bad precision", []string{"--device", "cuda", "--precision", "fp8"}, `invalid value "fp8" for flag --precision: want fp32, tf32 or bf16`},
		{"no emulated device", []string{"--models", dir, "--device", "cpu:0"}, "want cpu:N with N from 1"},
		{"a bad device", []string{"--models", dir, "--device", "tpu"}, "want cpu, cpu:N, cuda"},
		{"no manifest", []string{"--models", dir}, "models.json not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runAudit(append([]string{"--items", items, "--out", filepath.Join(dir, "out")}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
	code, stdout, _ := runAudit("--help")
	if code != 0 || !strings.Contains(stdout, "-models") || !strings.Contains(stdout, "-device") || !strings.Contains(stdout, "dup_confirm") {
		t.Errorf("help does not document --models and --device:\n%s", stdout)
	}
}

// TestAuditChecksItsRolesFirst gives audit a models directory whose two
// text roles each lack a file: the run stops before any work, naming both.
func TestAuditChecksItsRolesFirst(t *testing.T) {
	t.Parallel()
	needORT(t)
	items := demoSubset(t, 5)
	dir := writeTinyModels(t, models.RoleTextEmbed, models.RoleDupConfirm)
	os.Remove(filepath.Join(dir, "text_embed", "tokenizer.json"))
	os.Remove(filepath.Join(dir, "dup_confirm", "model.onnx"))
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runAudit("--items", items, "--out", out, "--models", dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, stderr)
	}
	for _, want := range []string{"2 problem(s)", "text_embed: " + dir, "missing tokenizer.json", "dup_confirm: " + dir, "missing model.onnx"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused run created its directory")
	}
}
