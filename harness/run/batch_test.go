package run

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// sortedLines returns the lines of the file at path, sorted.
func sortedLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	slices.SortFunc(lines, bytes.Compare)
	return lines
}

// TestAuditAppendsRecordsInBatches checks that a unit's records appended in
// several batches are the records of one append, and that a run cut
// between or inside batches resumes to the same outputs.
func TestAuditAppendsRecordsInBatches(t *testing.T) {
	t.Parallel()
	items := realItems(t, 60)
	dir := t.TempDir()
	whole, batched := filepath.Join(dir, "whole"), filepath.Join(dir, "batched")
	mustAudit(t, Options{Items: []string{items}, Out: whole, Seed: 5, Workers: 2})
	mustAudit(t, Options{Items: []string{items}, Out: batched, Seed: 5, Workers: 2, recordBatch: 7})
	sameOutputs(t, whole, batched)
	want := sortedLines(t, filepath.Join(whole, rundir.RecordsFile))
	if got := sortedLines(t, filepath.Join(batched, rundir.RecordsFile)); !slices.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("batched appends stored %d lines, one append per unit %d, or other lines", len(got), len(want))
	}
	records, err := os.ReadFile(filepath.Join(batched, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	config, _ := os.ReadFile(filepath.Join(batched, rundir.ConfigFile))
	for k, frac := range []float64{0.031, 0.4, 0.93} {
		out := filepath.Join(dir, "cut", string(rune('a'+k)))
		os.MkdirAll(out, 0o755)
		os.WriteFile(filepath.Join(out, rundir.ConfigFile), config, 0o644)
		os.WriteFile(filepath.Join(out, rundir.RecordsFile), records[:int(frac*float64(len(records)))], 0o644)
		res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 5, Workers: 2, recordBatch: 7})
		if !res.Resumed {
			t.Errorf("cut at %v: not resumed", frac)
		}
		sameOutputs(t, whole, out)
		if got := sortedLines(t, filepath.Join(out, rundir.RecordsFile)); !slices.EqualFunc(got, want, bytes.Equal) {
			t.Errorf("cut at %v: the resumed run stored other records", frac)
		}
	}
}
