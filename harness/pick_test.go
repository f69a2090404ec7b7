package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFilesPicksBenchmarksAndLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i, bench := range []string{"X", "Y", "X", "Z", "X", "Y"} {
		b.WriteString(`{"id": ` + string(rune('0'+i)) + `, "benchmark": "` + bench + `", "video": "v", "question": "q", "options": ["a", "b"], "answer": 0}` + "\n")
	}
	path := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opt  ReadOptions
		want string // "benchmark/id" of the items kept, in order
	}{
		{"everything", ReadOptions{}, "X/0 Y/1 X/2 Z/3 X/4 Y/5"},
		{"the first item of each benchmark", ReadOptions{Limit: 1}, "X/0 Y/1 Z/3"},
		{"two benchmarks", ReadOptions{Benchmarks: []string{"Y", "Z"}}, "Y/1 Z/3 Y/5"},
		{"both", ReadOptions{Benchmarks: []string{"X"}, Limit: 2}, "X/0 X/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ReadFiles(context.Background(), []string{path}, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Benchmark+"/"+it.ID)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("got %v, want %s", got, tt.want)
			}
		})
	}
	_, err := ReadFiles(context.Background(), []string{path}, ReadOptions{Benchmarks: []string{"X", "NExT-QA"}})
	if !errors.Is(err, ErrNoItems) || !strings.Contains(err.Error(), `no items of benchmark ["NExT-QA"] (the files hold ["X" "Y" "Z"])`) {
		t.Errorf("an unknown benchmark: %v", err)
	}
}
