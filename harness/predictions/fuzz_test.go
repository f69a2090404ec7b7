package predictions

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// fuzzItems are what fuzzed rows are matched against.
var fuzzItems = []*harness.Item{
	{ID: "q1", Benchmark: "B", Video: "v", Question: "What is shown?", Options: []string{"a cat", "a dog"}},
	{ID: "q2", Benchmark: "B", Video: "v", Question: "Who runs?", Options: []string{"the man", "the woman", "nobody"}},
}

func addFiles(f *testing.F, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
}

// checkMatch matches rows to the items: every answer must index its item's
// options.
func checkMatch(t *testing.T, rows []Row) {
	preds, _, err := Match(rows, fuzzItems, -1)
	if err != nil {
		return // an ambiguous digit reply is refused, not read
	}
	for _, it := range fuzzItems {
		if p, ok := preds[it.Key()]; ok && (p < -1 || p >= len(it.Options)) {
			t.Fatalf("answer %d for an item of %d options", p, len(it.Options))
		}
	}
}

// FuzzReadJSONL feeds arbitrary bytes to the JSONL predictions readers (the
// project's layout and lmms-eval samples): no panic, and what is accepted
// matches into the options.
func FuzzReadJSONL(f *testing.F) {
	addFiles(f, "*.jsonl")
	f.Add([]byte(`{"id": "q1", "benchmark": "B", "pred": 1}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReader(bytes.NewReader(data))
		format, err := sniffJSONL(br)
		if err != nil || format != Project {
			return // lmms-eval's lines: FuzzReadLMMSEval in package formats
		}
		rows, err := readProject(br, "fuzz.jsonl")
		if err == nil {
			checkMatch(t, rows)
		}
	})
}
