package records

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
)

// write writes a fixture named name under the test's directory.
func write(t testing.TB, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// wantParseError checks that err is a *harness.ParseError at file:line
// (or row), field, wrapping reason.
func wantParseError(t *testing.T, err error, file string, line, row int, field string, reason error) {
	t.Helper()
	var pe *harness.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want a *harness.ParseError", err, err)
	}
	if pe.File != file || pe.Line != line || pe.Row != row || pe.Field != field || !errors.Is(err, reason) {
		t.Errorf("error %v at %s:%d row %d field %q, want %s:%d row %d field %q wrapping %v", err, pe.File, pe.Line, pe.Row, pe.Field, file, line, row, field, reason)
	}
}

func TestWalkerNamesTheLineOfEachValue(t *testing.T) {
	t.Parallel()
	body := "[\n  {\"a\": 1},\n\n  {\"a\": 2}\n  ,\n  {\"a\":\n 3}\n]\n"
	w := NewWalker("x.json", strings.NewReader(body))
	if err := w.Enter('[', "a list"); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for w.More() {
		rec, err := w.Record("a record")
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, rec.Line)
	}
	if err := w.Leave(); err != nil {
		t.Fatal(err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 4, 6}; !reflect.DeepEqual(lines, want) {
		t.Errorf("record lines %v, want %v", lines, want)
	}
}

// summary is what a test compares of a record: where it is and its fields.
type summary struct {
	Source, Key string
	Values      map[string]any
}

func summarise(recs []*Record) []summary {
	out := make([]summary, len(recs))
	for i, r := range recs {
		out[i] = summary{r.Source(), r.Key, r.Values()}
	}
	return out
}

func TestReadEachLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name, file, body, path string
		d                      Dialect
		want                   []summary
	}{
		{"a list, a byte-order mark before it", "q.json", "\ufeff[\n {\"q\": \"why?\", \"n\": 3},\n {\"q\": \"how?\"}\n]", "", Dialect{},
			[]summary{{"q.json:2", "", map[string]any{"q": "why?", "n": "3"}}, {"q.json:3", "", map[string]any{"q": "how?"}}}},
		{"the one list of a top-level object", "q.json", "{\"version\": 2,\n \"data\": [{\"q\": \"a\"},\n  {\"q\": \"b\"}]}", "", Dialect{},
			[]summary{{"q.json:2", "", map[string]any{"q": "a"}}, {"q.json:3", "", map[string]any{"q": "b"}}}},
		{"a record path, keys in sorted order", "q.json", "{\"data\": {\n \"vidB\": [{\"q\": \"b\"}],\n \"vidA\": [{\"q\": \"a1\"}, {\"q\": \"a2\"}]}}", "data.*.*", Dialect{},
			[]summary{{"q.json:3", "vidA", map[string]any{"q": "a1"}}, {"q.json:3", "vidA", map[string]any{"q": "a2"}}, {"q.json:2", "vidB", map[string]any{"q": "b"}}}},
		{"JSON Lines, a blank line skipped", "q.jsonl", "{\"q\": \"a\"}\n\n{\"q\": \"b\"}\n", "", Dialect{},
			[]summary{{"q.jsonl: record 1", "", map[string]any{"q": "a"}}, {"q.jsonl:3", "", map[string]any{"q": "b"}}}},
		{"JSON Lines named .json", "q.json", "{\"q\": \"a\"}\n{\"q\": \"b\"}\n", "", Dialect{},
			[]summary{{"q.json: record 1", "", map[string]any{"q": "a"}}, {"q.json:2", "", map[string]any{"q": "b"}}}},
		{"CSV, a quoted cell over two lines, a short row", "q.csv", "\ufeffvideo, q ,a0\n1,\"two\nlines\",x\n2,short\n", "", Dialect{},
			[]summary{{"q.csv:2", "", map[string]any{"video": "1", "q": "two\nlines", "a0": "x"}}, {"q.csv:4", "", map[string]any{"video": "2", "q": "short"}}}},
		{"TSV", "q.tsv", "video\tq\n7\twhat, then?\n", "", Dialect{},
			[]summary{{"q.tsv:2", "", map[string]any{"video": "7", "q": "what, then?"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.file, tc.body)
			recs, err := Read(ctx, p, tc.path, tc.d)
			if err != nil {
				t.Fatal(err)
			}
			got := summarise(recs)
			for i := range got {
				got[i].Source = strings.TrimPrefix(got[i].Source, filepath.Dir(p)+string(filepath.Separator))
				for k, v := range got[i].Values {
					if n, ok := v.(interface{ String() string }); ok {
						got[i].Values[k] = n.String()
					}
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("records:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestReadParquet(t *testing.T) {
	t.Parallel()
	type row struct {
		ID      string   `parquet:"question_id"`
		Options []string `parquet:"options,list"`
		Secs    float64  `parquet:"secs"`
		Note    *string  `parquet:"note,optional"`
	}
	p := filepath.Join(t.TempDir(), "test-00000-of-00001.parquet")
	note := "kept"
	if err := parquet.WriteFile(p, []row{{"001-1", []string{"A. x", "B. y"}, 12.5, nil}, {"001-2", []string{"p", "q"}, 3, &note}}); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadParquet(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Source() != p+": row 1" || recs[1].N != 2 {
		t.Fatalf("records %+v", summarise(recs))
	}
	opts, err := recs[0].Strs("options", true)
	if err != nil || !reflect.DeepEqual(opts, []string{"A. x", "B. y"}) {
		t.Errorf("options %q, %v", opts, err)
	}
	if s, err := recs[0].Num("secs"); err != nil || *s != 12.5 {
		t.Errorf("secs %v, %v", s, err)
	}
	if recs[0].Has("note") || !recs[1].Has("note") {
		t.Errorf("a null cell must be absent, a given one present")
	}
	_, err = recs[1].Filled("secs")
	wantParseError(t, err, p, 0, 2, "secs", harness.ErrFieldType)
	cols, lists, err := ParquetColumns(p)
	if err != nil || !reflect.DeepEqual(cols, []string{"question_id", "options", "secs", "note"}) || !lists["options"] || lists["secs"] {
		t.Errorf("columns %v lists %v, %v", cols, lists, err)
	}
	bad := write(t, "bad.parquet", "PAR1 this is not a parquet file PAR1")
	_, err = ReadParquet(context.Background(), bad)
	wantParseError(t, err, bad, 0, 0, "", harness.ErrParquet)
}

func TestGettersNameTheFieldsLine(t *testing.T) {
	t.Parallel()
	body := "[{\"id\": 7,\n \"q\": \" \",\n \"n\": \"12.5\",\n \"bad\": \"soon\",\n \"opts\": [\"a\", 3,\n {}],\n \"sub\": [{\"x\": 1},\n \"y\"],\n \"i\": 1.5}]"
	p := write(t, "r.json", body)
	recs, err := Array(context.Background(), p, "records")
	if err != nil || len(recs) != 1 {
		t.Fatal(recs, err)
	}
	r := recs[0]
	if s, err := r.Text("id", true); s != "7" || err != nil {
		t.Errorf("Text(id) = %q, %v", s, err)
	}
	if n, err := r.Num("n"); err != nil || *n != 12.5 {
		t.Errorf("Num(n) = %v, %v", n, err)
	}
	if n, err := r.Index("missing"); n != -1 || err != nil {
		t.Errorf("Index(missing) = %d, %v", n, err)
	}
	for _, tc := range []struct {
		name  string
		get   func() error
		line  int
		field string
		is    error
	}{
		{"a blank string where text is needed", func() error { _, err := r.Filled("q"); return err }, 2, "q", harness.ErrEmptyField},
		{"a missing field", func() error { _, err := r.Str("video", true); return err }, 1, "video", harness.ErrMissingField},
		{"a number for a string", func() error { _, err := r.Str("id", false); return err }, 1, "id", harness.ErrFieldType},
		{"a word for a number", func() error { _, err := r.Num("bad"); return err }, 4, "bad", harness.ErrBadValue},
		{"an object among texts", func() error { _, err := r.Strs("opts", true); return err }, 5, "opts[2]", harness.ErrFieldType},
		{"a string among records", func() error { _, err := r.Records("sub"); return err }, 8, "sub[1]", harness.ErrFieldType},
		{"a fraction for an index", func() error { _, err := r.Index("i"); return err }, 9, "i", harness.ErrBadValue},
	} {
		t.Run(tc.name, func(t *testing.T) { wantParseError(t, tc.get(), p, tc.line, 0, tc.field, tc.is) })
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name, file, body, path string
		d                      Dialect
		line                   int
		field                  string
		is                     error
	}{
		{"cut short", "a.json", "[\n{\"q\": 1},\n{\"q\":", "", Dialect{}, 3, "", harness.ErrSyntax},
		{"a record that is no object", "a.json", "[\n{\"q\": 1},\n\"x\"]", "", Dialect{}, 3, "", harness.ErrSyntax},
		{"a record path over a missing key", "a.json", "{\"data\": []}", "videos.*", Dialect{}, 1, "", harness.ErrMissingField},
		{"a record path naming a key of a list", "a.json", "[\n[1]]", "*.x", Dialect{}, 2, "", harness.ErrFieldType},
		{"two lists at the top", "a.json", "{\"a\": [{}], \"b\": [{}]}", "", Dialect{}, 1, "", harness.ErrFieldType},
		{"a broken JSON line", "a.jsonl", "{\"q\": 1}\n{\"q\": \n", "", Dialect{}, 2, "", harness.ErrSyntax},
		{"a column named twice", "a.csv", "q,a,q\n1,2,3\n", "", Dialect{}, 1, "q", harness.ErrBadValue},
		{"a row longer than the header", "a.csv", "q,a\n1,2\n3,4,5\n", "", Dialect{}, 3, "", harness.ErrBadValue},
		{"not UTF-8", "a.csv", "q,a\n1,\xff\n", "", Dialect{}, 2, "a", harness.ErrInvalidUTF8},
		{"an unknown extension", "a.xml", "<q/>", "", Dialect{}, 0, "", harness.ErrNotAFile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, tc.file, tc.body)
			_, err := Read(ctx, p, tc.path, tc.d)
			wantParseError(t, err, p, tc.line, 0, tc.field, tc.is)
		})
	}
	// A strict table refuses a short row and a stray quote.
	for _, body := range []string{"q,a\n1\n", "q,a\n1,x\"y\n"} {
		p := write(t, "s.csv", body)
		_, err := ReadTable(ctx, p, Dialect{Comma: ','})
		wantParseError(t, err, p, 2, 0, "", harness.ErrSyntax)
	}
}

// TestReadTwiceAlike reads each layout twice: the records must be the
// same, in the same order.
func TestReadTwiceAlike(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, body, path string }{
		{"a.json", `{"x": {"b": [{"q": 1}], "a": [{"q": 2}]}}`, "x.*.*"},
		{"a.csv", "q,a\n1,2\n3,4\n", ""},
	} {
		p := write(t, c.file, c.body)
		a, err1 := Read(context.Background(), p, c.path, Dialect{})
		b, err2 := Read(context.Background(), p, c.path, Dialect{})
		if err1 != nil || err2 != nil || !reflect.DeepEqual(summarise(a), summarise(b)) {
			t.Errorf("%s: two reads differ (%v, %v)", c.file, err1, err2)
		}
	}
}

// fuzzRead feeds bytes to Read as the file name: it must give records or
// a ParseError naming the file, never panic, and each record's getters
// must answer without panicking.
func fuzzRead(f *testing.F, name, path string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		recs, err := Read(context.Background(), p, path, Dialect{})
		if err != nil {
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.File != p {
				t.Fatalf("error %v (%T) is not a ParseError naming %s", err, err, p)
			}
			return
		}
		for _, r := range recs {
			for _, k := range r.Fields() {
				r.Text(k, true)
				r.Strs(k, false)
				r.Num(k)
				r.Records(k)
				r.Object(k)
			}
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	fuzzRead(f, "a.json", "data.*.*", `{"data": {"v": [{"q": "x", "o": ["a", 1], "s": [{"t": 2}]}]}}`, "{\"data\": {\"v\": [\n{\"q\":", `[1]`)
}

func FuzzReadTable(f *testing.F) {
	fuzzRead(f, "a.csv", "", "\ufeffq,a0,a1\n\"x\ny\",1,2\n", "q,a\n1,\"2\n", "q,q\n")
}
