package formats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// writeAnno writes an annotation fixture under the test's temporary
// directory with the name the benchmark gives it, and returns its path.
func writeAnno(t testing.TB, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAnno reads the fixture with format f.
func readAnno(t testing.TB, f items.Format, paths ...string) (*items.Result, error) {
	t.Helper()
	return f.Read(context.Background(), paths, items.Options{IndexBase: -1})
}

// badCase is malformed input and the error it must give: the line, the
// field and words of the reason.
type badCase struct {
	name  string
	body  string
	line  int
	field string
	want  string
}

// checkBad runs malformed cases through f, each written as file name.
func checkBad(t *testing.T, f items.Format, file string, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeAnno(t, file, c.body)
			_, err := readAnno(t, f, p)
			checkParseError(t, err, p, c.line, c.field, c.want)
		})
	}
}

// checkParseError checks that err is a *harness.ParseError at file:line,
// field, saying want.
func checkParseError(t *testing.T, err error, file string, line int, field, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var pe *harness.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is a %T, want a *harness.ParseError", err, err)
	}
	if pe.File != file || pe.Line != line || pe.Field != field {
		t.Errorf("error at %s:%d field %q, want %s:%d field %q (%v)", pe.File, pe.Line, pe.Field, file, line, field, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

// fuzzAnno feeds bytes to a format's reader: it must return rows or an
// error, never panic, and an error must be a ParseError naming the file.
func fuzzAnno(f *testing.F, format items.Format, file string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), file)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := format.Read(context.Background(), []string{p}, items.Options{IndexBase: -1})
		if err != nil {
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.File != p {
				t.Fatalf("error %v (%T) is not a ParseError naming %s", err, err, p)
			}
			return
		}
		for _, r := range res.Rows {
			if r.ID == "" || r.Video == "" || len(r.Options) < 2 || r.GoldIndex < 0 || r.GoldIndex >= len(r.Options) {
				t.Fatalf("row %+v is not an item", r)
			}
		}
	})
}

// TestAutoDetectClaimsEachAnnotationFileOnce runs each fixture through
// items.Detect over every built-in format, as import auto does: exactly
// the format that reads it must claim it.
func TestAutoDetectClaimsEachAnnotationFileOnce(t *testing.T) {
	for _, c := range []struct{ file, body, want string }{
		{"mc_question_valid.json", perceptionTestFixture, "perceptiontest"},
		{"multi-choice.json", tempCompassMultiChoiceFixture, "tempcompass"},
		{"caption_matching.json", tempCompassCaptionFixture, "tempcompass"},
		{"yes_no.json", tempCompassYesNoFixture, "tempcompass"},
		{"1_plotQA.json", mlvuPlotQA, "mlvu"},
		{"9_summary.json", mlvuSummary, "mlvu"},
		{"lvb_val.json", longVideoBenchFixture, "longvideobench"},
		{"STAR_val.json", starFixture, "star"},
	} {
		f, err := items.Detect(All(), c.file, []byte(c.body))
		if err != nil || f.Name != c.want {
			t.Errorf("%s: detected %q (%v), want %s", c.file, f.Name, err, c.want)
		}
	}
}

// TestAnnotationReadersAreDeterministic reads each fixture twice: the rows
// and drops must be the same, in the same order (the JSON objects keyed by
// video are walked in file order, never through a Go map).
func TestAnnotationReadersAreDeterministic(t *testing.T) {
	for _, c := range []struct {
		format     items.Format
		file, body string
	}{
		{PerceptionTest(), "mc_question_valid.json", perceptionTestFixture},
		{TempCompass(), "multi-choice.json", tempCompassMultiChoiceFixture},
		{MLVU(), "1_plotQA.json", mlvuPlotQA},
		{LongVideoBench(), "lvb_val.json", longVideoBenchFixture},
		{STAR(), "STAR_val.json", starFixture},
		{NExTGQA(), "val.csv", nextGQATable},
	} {
		p := writeAnno(t, c.file, c.body)
		a, err1 := readAnno(t, c.format, p)
		b, err2 := readAnno(t, c.format, p)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", c.format.Name, err1, err2)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two reads differ", c.format.Name)
		}
	}
}
