package run

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

// TestRunInputs: run.json records the item files and video root as
// absolute paths, none for the embedded default or a pipe, and ReadInputs
// reads them back (nil from a run.json without them).
func TestRunInputs(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  Options
		want *Inputs
	}{
		{"relative paths made absolute", Options{Items: []string{"a.jsonl", "/b/c.parquet"}, VideoRoot: "w"},
			&Inputs{Items: []string{filepath.Join(wd, "a.jsonl"), "/b/c.parquet"}, Videos: filepath.Join(wd, "w")}},
		{"a pipe is no path", Options{Items: []string{"-"}}, nil},
		{"the embedded default is no path", Options{Items: []string{"demo.jsonl"}, FS: fstest.MapFS{}, VideoRoot: "/v"}, &Inputs{Videos: "/v"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runInputs(&tc.opt)
			if (got == nil) != (tc.want == nil) || got != nil && (!slices.Equal(got.Items, tc.want.Items) || got.Videos != tc.want.Videos) {
				t.Errorf("runInputs = %+v, want %+v", got, tc.want)
			}
		})
	}
	dir := t.TempDir()
	if in, err := ReadInputs(dir); in != nil || err != nil {
		t.Errorf("no run.json: %+v, %v; want nil, nil", in, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"inputs":{"items":["/x/i.jsonl"],"videos":"/x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if in, err := ReadInputs(dir); err != nil || in == nil || !slices.Equal(in.Items, []string{"/x/i.jsonl"}) || in.Videos != "/x" {
		t.Errorf("ReadInputs = %+v, %v", in, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"inputs":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInputs(dir); err == nil {
		t.Error("a truncated run.json read without error")
	}
}
