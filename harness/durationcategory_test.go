package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// duration_category is read by both JSONL paths (the fast one and the
// field-by-field one a line with an upper-case key takes) and kept as
// written; it never becomes seconds.
func TestDurationCategoryRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, line, want string
	}{
		{"fast path", `{"id":"001-1","benchmark":"videomme","video":"fFjv93ACGo8","question":"q?","options":["a","b"],"answer":0,"task":"","duration":null,"duration_category":"short"}`, "short"},
		{"field by field", `{"id":"001-1","benchmark":"videomme","video":"fFjv93ACGo8","question":"q?","options":["a","b"],"answer":0,"duration_category":"long","Extra":1}`, "long"},
		{"absent", `{"id":"001-1","benchmark":"videomme","video":"v","question":"q?","options":["a","b"],"answer":0}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "items.jsonl")
			if err := os.WriteFile(p, []byte(c.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			its, err := ReadFiles(context.Background(), []string{p}, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if its[0].DurationCategory != c.want || its[0].Duration != nil {
				t.Errorf("duration_category %q, duration %v; want %q, nil", its[0].DurationCategory, its[0].Duration, c.want)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(p, []byte(`{"id":"1","benchmark":"b","video":"v","question":"q?","options":["a","b"],"answer":0,"duration_category":3}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFiles(context.Background(), []string{p}, ReadOptions{}); err == nil {
		t.Error("a numeric duration_category was accepted")
	} else {
		t.Log(err)
	}
}
