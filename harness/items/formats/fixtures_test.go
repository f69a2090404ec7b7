package formats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// readFunc is a benchmark reader as a Format holds it, so that a test can
// drive the unexported readers and a Format's Read alike.
type readFunc = func(ctx context.Context, paths []string, opt items.Options) (*items.Result, error)

// writeFile writes a fixture under dir, making the folders its name
// holds, and returns its path.
func writeFile(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readAnno reads the fixture with format f.
func readAnno(t testing.TB, f items.Format, paths ...string) (*items.Result, error) {
	t.Helper()
	return f.Read(context.Background(), paths, items.NoOptions())
}

// parseError returns err as a *harness.ParseError, ending the test where
// it is none: every reader's error must say where in which file.
func parseError(t *testing.T, err error) *harness.ParseError {
	t.Helper()
	var pe *harness.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want a *harness.ParseError", err, err)
	}
	return pe
}

// wantParseError checks that err is a *harness.ParseError naming file,
// line and field, wrapping reason (any reason where it is nil).
func wantParseError(t *testing.T, err error, file string, line int, field string, reason error) {
	t.Helper()
	pe := parseError(t, err)
	if pe.File != file || pe.Line != line || pe.Field != field {
		t.Errorf("error names %s:%d field %q, want %s:%d field %q (%v)", pe.File, pe.Line, pe.Field, file, line, field, err)
	}
	if reason != nil && !errors.Is(err, reason) {
		t.Errorf("error %v, want one wrapping %v", err, reason)
	}
}

// wantParquetError checks that err is a *harness.ParseError naming the
// file, the Parquet row (0 for the file as a whole) and the field,
// wrapping reason: a table has rows where a text file has lines.
func wantParquetError(t *testing.T, err error, file string, row int, field string, reason error) {
	t.Helper()
	pe := parseError(t, err)
	if pe.File != file || pe.Row != row || pe.Field != field || !errors.Is(err, reason) {
		t.Errorf("error %v names %s row %d field %q; want %s row %d field %q wrapping %v", err, pe.File, pe.Row, pe.Field, file, row, field, reason)
	}
}

// checkParseError checks that err is a *harness.ParseError at file:line,
// field, saying want.
func checkParseError(t *testing.T, err error, file string, line int, field, want string) {
	t.Helper()
	pe := parseError(t, err)
	if pe.File != file || pe.Line != line || pe.Field != field {
		t.Errorf("error at %s:%d field %q, want %s:%d field %q (%v)", pe.File, pe.Line, pe.Field, file, line, field, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

// errCase is malformed input and the error it must give: the line, the
// field and the reason it wraps.
type errCase struct {
	name, body string
	line       int
	field      string
	reason     error
}

// checkErrors runs malformed cases through read, each written as file in
// a folder of its own.
func checkErrors(t *testing.T, read readFunc, file string, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), file, c.body)
			_, err := read(context.Background(), []string{p}, items.NoOptions())
			wantParseError(t, err, p, c.line, c.field, c.reason)
		})
	}
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
			p := writeFile(t, t.TempDir(), file, c.body)
			_, err := readAnno(t, f, p)
			checkParseError(t, err, p, c.line, c.field, c.want)
		})
	}
}

// detectCase is a file's path and first bytes, and whether a format's
// Detect must claim it.
type detectCase struct {
	path, head string
	want       bool
}

// checkDetect runs each case through one format's detect.
func checkDetect(t *testing.T, detect func(path string, head []byte) bool, cases []detectCase) {
	t.Helper()
	for _, c := range cases {
		if got := detect(c.path, []byte(c.head)); got != c.want {
			t.Errorf("detect %s %.60q = %v, want %v", c.path, c.head, got, c.want)
		}
	}
}

// autoCase is a file's path and first bytes, and the one format that
// import auto must pick for it.
type autoCase struct{ path, head, want string }

// checkAuto runs each case through items.Detect over every built-in
// format, as import auto does: exactly the format named must claim it.
func checkAuto(t *testing.T, cases []autoCase) {
	t.Helper()
	for _, c := range cases {
		f, err := items.Detect(All(), c.path, []byte(c.head))
		if err != nil || f.Name != c.want {
			t.Errorf("%s: detected %q (%v), want %s", filepath.Base(c.path), f.Name, err, c.want)
		}
	}
}

// goldInRange reports whether a row's gold is one of its options.
func goldInRange(r items.Row) bool { return r.GoldIndex >= 0 && r.GoldIndex < len(r.Options) }

// isChoice reports whether a row is a multiple-choice question: two
// options or more, the gold one of them.
func isChoice(r items.Row) bool { return goldInRange(r) && len(r.Options) >= 2 }

// checkFuzzRead is what a fuzz target asserts of a read: an error must be
// a *harness.ParseError naming one of files, and every row read must
// pass ok.
func checkFuzzRead(t *testing.T, res *items.Result, err error, ok func(items.Row) bool, files ...string) {
	t.Helper()
	if err != nil {
		var pe *harness.ParseError
		if !errors.As(err, &pe) || !slices.Contains(files, pe.File) {
			t.Fatalf("error %v (%T) is not a ParseError naming one of %s", err, err, files)
		}
		return
	}
	for _, r := range res.Rows {
		if !ok(r) {
			t.Fatalf("row %+v is not an item", r)
		}
	}
}

// fuzzRead feeds each input of f's corpus to read as the file name: it
// must return rows that pass ok or a ParseError naming the file, never
// panic. One file serves the fuzzing process, whose calls run one at a
// time.
func fuzzRead(f *testing.F, name string, read readFunc, ok func(items.Row) bool) {
	p := filepath.Join(f.TempDir(), name)
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := read(context.Background(), []string{p}, items.NoOptions())
		checkFuzzRead(t, res, err, ok, p)
	})
}

// fuzzAnno seeds f and fuzzes a format's reader: each row read must be a
// whole item, with an id and a video.
func fuzzAnno(f *testing.F, format items.Format, file string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	fuzzRead(f, file, format.Read, func(r items.Row) bool { return isChoice(r) && r.ID != "" && r.Video != "" })
}

// addParquetSeeds adds rows written as a Parquet file to f's corpus, and
// the file's first half, so that the fuzzer starts from a real table and
// from one cut short.
func addParquetSeeds[T any](f *testing.F, rows []T) {
	p := filepath.Join(f.TempDir(), "seed.parquet")
	if err := parquet.WriteFile(p, rows); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
}

// TestAutoDetectClaimsEachAnnotationFileOnce runs each fixture through
// items.Detect over every built-in format, as import auto does: exactly
// the format that reads it must claim it.
func TestAutoDetectClaimsEachAnnotationFileOnce(t *testing.T) {
	t.Parallel()
	checkAuto(t, []autoCase{
		{"mc_question_valid.json", perceptionTestFixture, "perceptiontest"},
		{"multi-choice.json", tempCompassMultiChoiceFixture, "tempcompass"},
		{"caption_matching.json", tempCompassCaptionFixture, "tempcompass"},
		{"yes_no.json", tempCompassYesNoFixture, "tempcompass"},
		{"1_plotQA.json", mlvuPlotQA, "mlvu"},
		{"9_summary.json", mlvuSummary, "mlvu"},
		{"lvb_val.json", longVideoBenchFixture, "longvideobench"},
		{"STAR_val.json", starFixture, "star"},
	})
}

// TestAnnotationReadersAreDeterministic reads each fixture twice: the rows
// and drops must be the same, in the same order (the JSON objects keyed by
// video are walked in file order, never through a Go map).
func TestAnnotationReadersAreDeterministic(t *testing.T) {
	t.Parallel()
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
		p := writeFile(t, t.TempDir(), c.file, c.body)
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
