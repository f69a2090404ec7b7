package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// outputs are the files whose bytes must not depend on workers or
// interruptions (records.log may hold the same records in another order).
var outputs = []string{rundir.ConfigFile, rundir.CardsJSON, rundir.CardsMarkdown, rundir.IndexHTML, rundir.ItemsParquet, rundir.DuplicatesFile, rundir.QuestionNPY}

// realItems writes the first n lines of each embedded default file (real
// annotations of four benchmarks) to one JSONL file and returns its path.
func realItems(t testing.TB, n int) string {
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

func mustAudit(t *testing.T, opt Options) *Result {
	t.Helper()
	res, err := Audit(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sameOutputs(t *testing.T, a, b string) {
	t.Helper()
	for _, name := range outputs {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s", name, a, b)
		}
	}
}

func TestAuditOutputsDoNotDependOnWorkers(t *testing.T) {
	t.Parallel()
	items := realItems(t, 150)
	dir := t.TempDir()
	one := mustAudit(t, Options{Items: []string{items}, Out: filepath.Join(dir, "w1"), Seed: 7, Workers: 1})
	mustAudit(t, Options{Items: []string{items}, Out: filepath.Join(dir, "w2"), Seed: 7, Workers: 2})
	sameOutputs(t, filepath.Join(dir, "w1"), filepath.Join(dir, "w2"))
	// VideoHallucer's 150 items are bare yes/no pairs, set aside (its
	// card says so): 450 items are audited, into 4 cards.
	if one.Items != 450 || len(one.Cards) != 4 {
		t.Errorf("audited %d items into %d cards, want 450 into 4", one.Items, len(one.Cards))
	}
	f, err := os.Open(filepath.Join(dir, "w1", rundir.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	// 15 item columns, a dq_ flag each, and per attacker pred, scored,
	// abstained, floored, correct, margin and solved.
	if want := 15 + len(harness.QualityNames()) + 7*len(one.Attackers); pf.NumRows() != 450 || len(pf.Schema().Columns()) != want {
		t.Errorf("items.parquet has %d rows and %d columns, want 450 and %d", pf.NumRows(), len(pf.Schema().Columns()), want)
	}
	f.Close()
	if one.Resumed || one.UnitsStored != 0 || one.Units == 0 {
		t.Errorf("fresh run reports resumed=%v, %d of %d units stored", one.Resumed, one.UnitsStored, one.Units)
	}
	// Run again: everything is stored, nothing is computed, same bytes.
	again := mustAudit(t, Options{Items: []string{items}, Out: filepath.Join(dir, "w1"), Seed: 7, Workers: 2})
	if !again.Resumed || again.UnitsStored != again.Units {
		t.Errorf("second run: resumed=%v, %d of %d units stored", again.Resumed, again.UnitsStored, again.Units)
	}
	for _, a := range again.Attackers {
		if a.Variants != 0 {
			t.Errorf("second run recomputed %d variants of %s", a.Variants, a.Name)
		}
	}
	sameOutputs(t, filepath.Join(dir, "w1"), filepath.Join(dir, "w2"))
}

// TestAuditResumesFromAnyCut cuts the record file of a finished run at
// several points, some inside a line (a write torn by a crash), removes the
// outputs, and checks that a resumed run writes the same bytes.
func TestAuditResumesFromAnyCut(t *testing.T) {
	t.Parallel()
	items := realItems(t, 100)
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	mustAudit(t, Options{Items: []string{items}, Out: full, Seed: 3, Workers: 2})
	records, err := os.ReadFile(filepath.Join(full, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	config, _ := os.ReadFile(filepath.Join(full, rundir.ConfigFile))
	for _, frac := range []float64{0, 0.13, 0.5, 0.77, 0.999} {
		cut := int(frac * float64(len(records)))
		out := filepath.Join(dir, strings.ReplaceAll(filepath.Base(t.Name())+"-"+string(rune('a'+int(frac*10))), "/", "_"))
		os.MkdirAll(out, 0o755)
		os.WriteFile(filepath.Join(out, rundir.ConfigFile), config, 0o644)
		os.WriteFile(filepath.Join(out, rundir.RecordsFile), records[:cut], 0o644)
		// A temporary file left by an atomic write that was cut short.
		os.WriteFile(filepath.Join(out, ".cards.json.tmp-123"), []byte("{"), 0o644)
		res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 3, Workers: 2})
		sameOutputs(t, full, out)
		if !res.Resumed {
			t.Errorf("cut at %d: not reported as resumed", cut)
		}
		if cut > 0 && records[cut-1] != '\n' && res.DroppedBytes == 0 {
			t.Errorf("cut at %d inside a line: no torn bytes dropped", cut)
		}
		if _, err := os.Stat(filepath.Join(out, ".cards.json.tmp-123")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cut at %d: stale temporary file kept", cut)
		}
	}
}

func TestAuditRefusesAnotherConfiguration(t *testing.T) {
	t.Parallel()
	items := realItems(t, 40)
	out := filepath.Join(t.TempDir(), "run")
	mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 1, Workers: 2, Levels: []harness.Level{harness.LevelOption}})
	before, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	_, err := Audit(context.Background(), Options{Items: []string{items}, Out: out, Seed: 2, Workers: 2, Levels: []harness.Level{harness.LevelOption}})
	var cm *rundir.ConfigMismatchError
	if !errors.As(err, &cm) || strings.Join(cm.Fields, ",") != "seed" {
		t.Fatalf("got %v, want a mismatch in seed", err)
	}
	// Adding levels extends a run (extend_test.go); taking one away changes
	// what is stored.
	_, err = Audit(context.Background(), Options{Items: []string{items}, Out: out, Seed: 1, Workers: 2, Levels: []harness.Level{harness.LevelText}})
	if !errors.As(err, &cm) || !slices.Contains(cm.Fields, "attack.levels") {
		t.Fatalf("got %v, want a mismatch in attack.levels", err)
	}
	after, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if !bytes.Equal(before, after) {
		t.Error("a refused run changed the outputs")
	}
	other := filepath.Join(t.TempDir(), "user-files")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if _, err := Audit(context.Background(), Options{Items: []string{items}, Out: other}); !errors.Is(err, rundir.ErrNotRunDir) {
		t.Fatalf("got %v, want rundir.ErrNotRunDir for a directory with other files", err)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 1 {
		t.Errorf("refused directory now holds %d entries", len(entries))
	}
}

func TestAuditWritesNothingForBadInput(t *testing.T) {
	t.Parallel()
	good := realItems(t, 5)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x", "benchmark": "B", "video": "v", "question": "q", "options": ["a", "b"], "answer": 2}`+"\n"), 0o644)
	badRef := filepath.Join(t.TempDir(), "ref.jsonl")
	os.WriteFile(badRef, []byte(`{"id": "nope", "benchmark": "NExT-QA", "pred": 0}`+"\n"), 0o644)
	for _, tt := range []struct {
		name string
		opt  Options
		want error
	}{
		{"an answer out of range", Options{Items: []string{good, bad}}, harness.ErrAnswerRange},
		{"a reference to an unknown item", Options{Items: []string{good}, Reference: badRef}, harness.ErrUnknownItem},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Out = filepath.Join(t.TempDir(), "run")
			_, err := Audit(context.Background(), tt.opt)
			var pe *harness.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want a ParseError for %v", err, tt.want)
			}
			if _, err := os.Stat(tt.opt.Out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("bad input created %s", tt.opt.Out)
			}
		})
	}
}

// cancellingEmbedder is a fitted Lexical that cancels the run once the
// texts are embedded, so that the attack stage starts cancelled.
type cancellingEmbedder struct {
	*textembed.Lexical
	cancel context.CancelFunc
}

func (e cancellingEmbedder) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	m, err := e.Lexical.Embed(ctx, texts)
	if e.cancel != nil {
		e.cancel()
	}
	return m, err
}

func TestAuditStopsOnCancellationAndResumes(t *testing.T) {
	t.Parallel()
	path := realItems(t, 60)
	items, err := harness.ReadFiles(context.Background(), []string{path}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lex := textembed.NewLexical(256)
	var texts []string
	for _, it := range items {
		texts = append(texts, textembed.ItemText(it))
	}
	lex.Fit(texts)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = Audit(ctx, Options{Items: []string{path}, Out: filepath.Join(dir, "cut"), Workers: 2, Embedder: cancellingEmbedder{lex, cancel}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cut", rundir.CardsJSON)); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a cancelled run wrote cards")
	}
	mustAudit(t, Options{Items: []string{path}, Out: filepath.Join(dir, "cut"), Workers: 2, Embedder: cancellingEmbedder{lex, nil}})
	mustAudit(t, Options{Items: []string{path}, Out: filepath.Join(dir, "whole"), Workers: 1, Embedder: cancellingEmbedder{lex, nil}})
	sameOutputs(t, filepath.Join(dir, "cut"), filepath.Join(dir, "whole"))
}

func TestAuditWithReferenceFillsTheReferenceFigures(t *testing.T) {
	t.Parallel()
	path := realItems(t, 80)
	items, err := harness.ReadFiles(context.Background(), []string{path}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A made-up reference model: right on three items of four, else the
	// next option.
	var ref bytes.Buffer
	right := map[string]int{}
	for i, it := range items {
		pred := it.Answer
		if i%4 == 3 {
			pred = (it.Answer + 1) % len(it.Options)
		} else {
			right[it.Benchmark]++
		}
		fmt.Fprintf(&ref, `{"id": %q, "benchmark": %q, "pred": %d}`+"\n", it.ID, it.Benchmark, pred)
	}
	refPath := filepath.Join(t.TempDir(), "ref.jsonl")
	os.WriteFile(refPath, ref.Bytes(), 0o644)
	out := filepath.Join(t.TempDir(), "run")
	res := mustAudit(t, Options{Items: []string{path}, Out: out, Reference: refPath, Workers: 2})
	for _, c := range res.Cards {
		if c.YesNoOnly { // VideoHallucer: set aside, no figures
			if c.ReferenceAccuracy != nil || c.BreakingLevel != nil {
				t.Errorf("%s: a yes/no-only card with reference figures", c.Benchmark)
			}
			continue
		}
		if c.ReferenceAccuracy == nil || math.Abs(*c.ReferenceAccuracy-float64(right[c.Benchmark])/float64(c.N)) > 1e-6 {
			t.Errorf("%s: s* = %v, want %d/%d", c.Benchmark, c.ReferenceAccuracy, right[c.Benchmark], c.N)
		}
		for _, d := range []string{"0.03", "0.05", "0.08"} {
			if _, ok := c.BreakingLevel[d]; !ok {
				t.Errorf("%s: no breaking level at delta %s", c.Benchmark, d)
			}
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, rundir.IndexHTML))
	if !bytes.Contains(page, []byte("s* − c")) {
		t.Error("index.html has no s* - c line")
	}
	var cfg rundir.Config
	b, _ := os.ReadFile(filepath.Join(out, rundir.ConfigFile))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.Reference == nil || cfg.Reference.Name != "ref.jsonl" {
		t.Errorf("config.json does not record the reference: %s", b)
	}
}

func TestAuditStartsOverADirectoryKilledWhileWritingItsConfig(t *testing.T) {
	items := realItems(t, 20)
	out := filepath.Join(t.TempDir(), "run")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, rundir.LockFile), nil, 0o644)
	os.WriteFile(filepath.Join(out, ".config.json.tmp-42"), []byte(`{"format": "vid`), 0o644)
	res := mustAudit(t, Options{Items: []string{items}, Out: out, Workers: 2, Levels: []harness.Level{harness.LevelOption}})
	if res.Resumed {
		t.Error("a directory without config.json was taken for a resumed run")
	}
	if _, err := os.Stat(filepath.Join(out, ".config.json.tmp-42")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the torn config was kept")
	}
}
