package screen_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// audit runs the option, text and pool levels on the first n real items of
// each embedded benchmark into a new run directory.
func audit(t testing.TB, n int) string {
	t.Helper()
	b, err := demo.Head(n)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	items := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(items, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if _, err := run.Audit(context.Background(), run.Options{Items: []string{items}, Out: out, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestScreenOfARealAudit(t *testing.T) {
	t.Parallel()
	if rundir.QuestionNPY != screen.QuestionNPY || rundir.CentreFrameNPY != screen.CentreFrameNPY || rundir.MeanFrameNPY != screen.MeanFrameNPY {
		t.Fatal("the run and screening name the embedding files differently")
	}
	dir := audit(t, 60)
	in, err := screen.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// No model reader ran: the learners screen when named, everywhere
	// (their cards find them significant on none of the multiple-choice
	// benchmarks left once VideoHallucer's yes/no items are set aside).
	opt := screen.Options{Attackers: []string{"fixed-position", "copy"}, EveryAttacker: true}
	s, err := screen.Compute(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	// VideoHallucer's 60 items are bare yes/no pairs, set aside by the
	// audit: they never reach the funnel.
	if len(s.Rows) != 180 || len(s.Benchmarks) != 3 || s.Embeddings.Question == nil || s.Embeddings.Question.Rows != 180 || s.Embeddings.CentreFrame != nil || s.KeepYesNo {
		t.Fatalf("%d rows, %d benchmarks, embeddings %+v; want 180 rows of 3 benchmarks with question embeddings only", len(s.Rows), len(s.Benchmarks), s.Embeddings)
	}
	// No attacker of these levels is a model reader: each verdict is the
	// audit's own <name>_solved without the seeded guesses.
	type cell struct {
		Solved    bool `parquet:"copy_solved"`
		Abstained bool `parquet:"copy_abstained"`
		FPSolved  bool `parquet:"fixed_position_solved"`
		FPAbst    bool `parquet:"fixed_position_abstained"`
	}
	cells, err := parquet.ReadFile[cell](filepath.Join(dir, "items.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	kept, solved := 0, 0
	for i, r := range s.Rows {
		if r.Verdict("copy").Solved != (cells[i].Solved && !cells[i].Abstained) || r.Verdict("fixed-position").Solved != (cells[i].FPSolved && !cells[i].FPAbst) {
			t.Errorf("row %d (%s): verdicts %+v / %+v disagree with items.parquet %+v", i, r.ID, r.Verdict("copy"), r.Verdict("fixed-position"), cells[i])
		}
		if r.Kept {
			kept++
		}
		if r.RemovedBy == "fixed-position" || r.RemovedBy == "copy" {
			solved++
		}
		if r.Kept != (r.RemovedBy == "" && r.Pending == "") || r.Pending != "" {
			t.Errorf("row %d: kept %v, removed by %q, pending %q", i, r.Kept, r.RemovedBy, r.Pending)
		}
		if r.RemovedBy != "" && r.RemovedBy != screen.StepDuplicate && r.RemovedBy != screen.StepOptionFormat && r.RemovedBy != screen.StepCrossDuplicate && len(r.SolvedBy) == 0 {
			t.Errorf("row %d removed by %q, which does not solve it", i, r.RemovedBy)
		}
	}
	sumKept, sumSolved := 0, 0
	for _, b := range s.Benchmarks {
		sumKept += b.Kept
		for _, st := range b.Funnel {
			if st.Name == "fixed-position" || st.Name == "copy" {
				sumSolved += st.Removed
			}
		}
	}
	if kept != sumKept || solved != sumSolved || kept == 0 || solved == 0 {
		t.Errorf("rows keep %d and solve %d, summaries %d and %d", kept, solved, sumKept, sumSolved)
	}
	// Screening the same run twice gives the same bytes.
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if err := s.Write(a); err != nil {
		t.Fatal(err)
	}
	in2, err := screen.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := screen.Compute(in2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Write(b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{screen.ScreenParquet, screen.AmbiguityParquet, screen.ScreenJSON, screen.ScreenHTML, screen.QuestionNPY} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s empty or not byte-identical", name)
		}
	}
}

func TestOpenRefusesWhatIsNotAFinishedAudit(t *testing.T) {
	t.Parallel()
	if _, err := screen.Open(t.TempDir()); err == nil {
		t.Error("an empty directory opened as a run")
	}
}

// An audit whose write stage is cut short leaves a run whose outputs come
// from two runs: here an extension to a second benchmark wrote its
// cards.json and cards.md, then failed at index.html, so items.parquet is
// still the first run's. Screening must refuse it, saying the audit did not
// finish, instead of screening the first run's items against the second
// run's cards; rerunning the audit finishes it.
func TestOpenRefusesARunWhoseWriteStageWasInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"nextqa.jsonl", "star.jsonl"} {
		b, err := fs.ReadFile(demo.FS(), name)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, bytes.Join(lines[:12], nil), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	out := filepath.Join(dir, "run")
	ctx := context.Background()
	if _, err := run.Audit(ctx, run.Options{Items: files[:1], Out: out, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := screen.Open(out); err != nil {
		t.Fatalf("the finished first run: %v", err)
	}
	// A directory that cannot be replaced by a file fails the write of
	// index.html after cards.json is written.
	index := filepath.Join(out, rundir.IndexHTML)
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(index, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Audit(ctx, run.Options{Items: files, Out: out, Seed: 3}); err == nil {
		t.Fatal("the extension wrote index.html over a directory")
	}
	_, err := screen.Open(out)
	if !errors.Is(err, completion.ErrUnfinished) || !strings.Contains(err.Error(), "rerun the same audit command") {
		t.Fatalf("Open of a half-written run = %v, want the audit did not finish", err)
	}
	if err := os.RemoveAll(index); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Audit(ctx, run.Options{Items: files, Out: out, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	in, err := screen.Open(out)
	if err != nil {
		t.Fatalf("the finished extension: %v", err)
	}
	if len(in.Rows) != 24 {
		t.Errorf("the finished extension has %d items, want 24", len(in.Rows))
	}
}
