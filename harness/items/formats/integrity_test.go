package formats

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// Issue 33 §2: each adversary's mutation below gave exit 0 with a wrong
// answer; each is now an error naming the file.

// TestXLSXBitFlipsNeverImportWrongRows flips one bit at a time across a
// result workbook: every flip either reads the same rows or is refused.
// excelize alone discards the zip's checksum error and returned rows
// lost or text changed.
func TestXLSXBitFlipsNeverImportWrongRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := [][]string{{"index", "video", "question", "A", "B", "C", "D", "answer", "category", "prediction"}}
	for i := 0; i < 300; i++ {
		rows = append(rows, []string{fmt.Sprint(i), fmt.Sprintf("v%03d.mp4", i), fmt.Sprintf("What happens in clip %d?", i), "apples", "candles", "doors", "eggs", "ABCD"[i%4 : i%4+1], "action", "A"})
	}
	path := writeSheet(t, filepath.Join(dir, "m", "m_Bench.xlsx"), rows)
	want, err := ReadVLMEvalKit(context.Background(), path)
	if err != nil || len(want) != 300 {
		t.Fatalf("the clean workbook: %d rows, %v", len(want), err)
	}
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	const flips = 40
	for k := 0; k < flips; k++ {
		b := append([]byte(nil), clean...)
		off := 64 + k*(len(b)-128)/flips // past the first local header's name
		b[off] ^= 1 << (k % 8)
		p := filepath.Join(dir, "m", fmt.Sprintf("m_Flip%d.xlsx", k))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadVLMEvalKit(context.Background(), p)
		if err != nil {
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.File != p {
				t.Errorf("flip at byte %d: error %v names no file", off, err)
			}
			refused++
			continue
		}
		for i := range got {
			got[i].Benchmark, got[i].Source, got[i].File = want[i].Benchmark, want[i].Source, want[i].File
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("flip at byte %d: read %d rows, not the workbook's 300, with exit 0", off, len(got))
		}
	}
	if refused == 0 {
		t.Errorf("no flip of %d was refused", flips)
	}
	t.Logf("%d of %d one-bit flips refused, the others read the workbook's 300 rows unchanged", refused, flips)
}

// TestXLSXDamagedSaysSo: a workbook cut short, or with a sheet's checksum
// broken, is named damaged, not "not a workbook".
func TestXLSXDamagedSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeSheet(t, filepath.Join(dir, "m", "m_B.xlsx"), [][]string{{"index", "question", "A", "B", "answer"}, {"0", "q?", "x", "y", "A"}})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := writeFile(t, dir, "m_Cut.xlsx", string(b[:len(b)*2/3]))
	_, err = ReadVLMEvalKit(context.Background(), cut)
	if err == nil || !strings.Contains(err.Error(), "a damaged .xlsx workbook") || !strings.Contains(err.Error(), "cut short") || strings.Contains(err.Error(), "not a JSON object") || !errors.Is(err, harness.ErrSyntax) {
		t.Errorf("a truncated workbook: %v; want it named damaged, cut short", err)
	}
}

// TestDelimitedFieldCounts: a row whose field count differs from the
// header's is refused with both counts; a tab in a cell made the task
// "col" before.
func TestDelimitedFieldCounts(t *testing.T) {
	t.Parallel()
	head := "index\tvideo\tquestion\tA\tB\tanswer\ttask\n"
	for _, tt := range []struct {
		name, body, want string
	}{
		{"a tab inside a cell", head + "0\tv.mp4\tq?\tx\ty\tA\taction\n1\tv.mp4\tthe\tcol q?\tx\ty\tA\taction\n", "f.tsv:3: invalid value: the row has 8 fields, the header 7 (a tab inside a cell"},
		{"a short row", head + "0\tv.mp4\tq?\tx\ty\tA\n", "f.tsv:2: invalid value: the row has 6 fields, the header 7 (a row cut short"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadDelimited(context.Background(), strings.NewReader(tt.body), "f.tsv")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, harness.ErrBadValue) {
				t.Errorf("error %v; want %q", err, tt.want)
			}
		})
	}
}

// TestLMMSEvalLineHoldsOneValue: two samples on one line lost the second;
// trailing text was accepted.
func TestLMMSEvalLineHoldsOneValue(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	one := `{"doc_id": 0, "doc": {"question_id": "q0", "video": "v.mp4", "question": "q?", "options": ["x", "y"], "answer": "A"}, "target": "A", "filtered_resps": ["A"]}`
	for _, tt := range []struct {
		name, line, want string
	}{
		{"two records", one + " " + strings.Replace(one, `"q0"`, `"q1"`, 1), "a second JSON value on the same line"},
		{"trailing text", one + " xyz", `text after the object ("xyz")`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "samples_"+strings.ReplaceAll(tt.name, " ", "_")+".jsonl", one+"\n"+tt.line+"\n")
			_, err := LMMSEval().Read(context.Background(), []string{p}, items.NoOptions())
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, harness.ErrSyntax) {
				t.Errorf("error %v; want line 2: %q", err, tt.want)
			}
		})
	}
}

// TestEgoSchemaQuotedAnswerSaysText: an answer "2" in quotes read "got 2,
// want the 0-based index", as if 2 were refused.
func TestEgoSchemaQuotedAnswerSaysText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := writeFile(t, dir, "questions.json", `[{"q_uid": "u1", "question": "q?", "option 0": "a", "option 1": "b", "option 2": "c", "option 3": "d", "option 4": "e"}]`)
	a := writeFile(t, dir, "subset_answers.json", `{"u1": "2"}`)
	_, err := readEgoSchema(context.Background(), []string{q, a}, items.NoOptions())
	if err == nil || !strings.Contains(err.Error(), `got the text "2" (in quotes)`) {
		t.Errorf("error %v; want it to say the answer is text", err)
	}
}

// TestOneValueFilesRefuseTrailingText: lmms-eval v0.2's <task>.json and
// VLMEvalKit's PRED_FORMAT=json hold one JSON value; what follows it is
// refused, not dropped.
func TestOneValueFilesRefuseTrailingText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := writeFile(t, dir, "mvbench.json", `{"logs": [{"doc_id": 0, "doc": {"question_id": "a", "video": "v.mp4", "question": "q?", "options": ["x", "y"], "answer": "A"}, "target": "A", "filtered_resps": ["A"]}]}`+"\n"+`{"logs": []}`)
	if _, err := LMMSEval().Read(context.Background(), []string{logs}, items.NoOptions()); err == nil || !strings.Contains(err.Error(), "after the document, at line 1") {
		t.Errorf("a second object after the logs: %v", err)
	}
	arr := writeFile(t, dir, "M_Bench.json", `[{"index": 0, "video": "v.mp4", "question": "q", "A": "x", "B": "y", "answer": "A"}] [{"index": 1}]`)
	if _, err := ReadVLMEvalKit(context.Background(), arr); err == nil || !strings.Contains(err.Error(), "text after the array of rows") {
		t.Errorf("a second array after the rows: %v", err)
	}
}
