package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportNothingToAuditIsExit2: a header-only table and an EgoSchema
// questions file none of whose answers were given read 0 items with
// exit 0 (issue 33 §2.7); an import with no item is bad input, as an
// empty file is, and the dropped records' one reason is said once with
// its count.
func TestImportNothingToAuditIsExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	headerOnly := writeTestFile(t, filepath.Join(dir, "MVBench.tsv"), "index\tvideo\tquestion\tA\tB\tanswer\n")
	var qs []string
	for i := range 40 {
		qs = append(qs, fmt.Sprintf(`{"q_uid": "%08d-0000-0000-0000-000000000000", "question": "q%d?", "option 0": "a", "option 1": "b", "option 2": "c", "option 3": "d", "option 4": "e"}`, i, i))
	}
	questions := writeTestFile(t, filepath.Join(dir, "ego", "questions.json"), "["+strings.Join(qs, ",\n")+"]")
	answers := writeTestFile(t, filepath.Join(dir, "ego", "subset_answers.json"), `{"ffffffff-0000-0000-0000-000000000000": 1}`)
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"a header-only table", []string{"vlmevalkit", headerOnly}, []string{"no items: 0 records read"}},
		{"EgoSchema without a matching answer", []string{"egoschema", questions, answers}, []string{
			"no items: 41 records read, 0 open-ended, 41 dropped",
			"dropped 40 records: no public answer (subset_answers.json holds 500 of EgoSchema's answers): " + questions + ": record 1, ",
			"and 37 more",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			code, _, stderr := runCmd(append(append([]string{"import"}, tt.args...), "--out", out)...)
			if code != 2 {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if n := strings.Count(stderr, "no public answer"); n > 1 {
				t.Errorf("the one reason said %d times", n)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused import wrote its output")
			}
		})
	}
}
