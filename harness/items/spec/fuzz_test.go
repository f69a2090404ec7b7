package spec

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness/items"
)

// FuzzSpec feeds arbitrary specs and annotation files through Parse and
// Read: either an error or rows whose gold is one of their options.
func FuzzSpec(f *testing.F) {
	f.Add("name: B\nfields: {question: q, options: o, answer: a, video: \"{v}.mp4\"}\n", `[{"v": "1", "q": "x?", "o": ["A. a", "B. b"], "a": "B"}]`)
	f.Add("name: B\nrecords: data.*.*\nfields: {id: \"{__key}\", question: q, option_fields: [a0, a1, a2], answer: a, video: v}\nanswer_type: index1\n", `{"data": {"k": [{"v": 1, "q": "?", "a0": "x", "a1": "", "a2": "z", "a": 3}]}}`)
	f.Add("name: B\nfields: {question: q, answer: a, video: v}\nkeep: mcq\ndedupe: true\nfilters: [{field: q, matches: \"^W\"}]\n", `[{"v": "1", "q": "Why?\nA. x\nB. y", "a": "A"}]`)
	f.Fuzz(func(t *testing.T, specText, data string) {
		s, err := Parse([]byte(specText), "spec.yaml")
		if err != nil {
			return
		}
		p := filepath.Join(t.TempDir(), "d.json")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := s.Read(context.Background(), []string{p}, items.Options{IndexBase: 0})
		if err != nil {
			return
		}
		for _, r := range res.Rows {
			if r.GoldIndex < 0 || r.GoldIndex >= len(r.Options) || len(r.Options) < 2 {
				t.Fatalf("row %s: gold %d of %d options", r.Source, r.GoldIndex, len(r.Options))
			}
		}
	})
}
