package harness

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJSONLReader feeds arbitrary bytes to the reader: it must never panic,
// every error must be a *ParseError (the reader reads from memory, so no I/O
// error can occur), and every item it returns must satisfy the rules.
func FuzzJSONLReader(f *testing.F) {
	seed, err := os.ReadFile("testdata/items.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(good))
	f.Add([]byte(`{"id":"q","benchmark":"B","video":"v","question":"q","options":["a","b"],"answer":1e400}`))
	f.Add([]byte("{\"id\":\"\xff\"}\n\n{}"))
	f.Add([]byte(`{"id":"a","ID":"b","benchmark":"B","video":"v","question":"q","options":["a","b"],"answer":1}`))
	f.Add([]byte("\xEF\xBB\xBF" + good))
	f.Add([]byte(strings.Repeat("\n", 3000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast path must agree with the field-by-field one wherever it
		// accepts a line. One reader serves every line: NewJSONLReader
		// allocates a 64 KiB buffer, and one per line made an input of a
		// few thousand newlines cost 140 ms, so the fuzzer spent its minute
		// of minimising such inputs at 0 execs/s.
		lines := &JSONLReader{name: "fuzz.jsonl"}
		for _, line := range bytes.Split(data, []byte("\n")) {
			r := lines
			fast, ok := r.parseFast(line)
			if !ok {
				continue
			}
			slow, err := r.parseFields(line)
			if err != nil || !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fast path accepted %q as %+v; field by field: %+v, %v", line, fast, slow, err)
			}
		}
		r := NewJSONLReader(bytes.NewReader(data), "fuzz.jsonl")
		for {
			it, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line < 1 {
					t.Fatalf("error %v is not a *ParseError with a line", err)
				}
				return
			}
			if it.Answer < 0 || it.Answer >= len(it.Options) || len(it.Options) < 2 {
				t.Fatalf("accepted item breaks the rules: %+v", it)
			}
			for _, s := range append([]string{it.ID, it.Benchmark, it.Question}, it.Options...) {
				if !utf8.ValidString(s) {
					t.Fatalf("accepted invalid UTF-8 %q", s)
				}
			}
		}
	})
}

// FuzzParquetReader feeds arbitrary bytes (and mutations of a valid items
// file) to the Parquet reader: it must never panic, and every error must be
// a *ParseError naming the file.
func FuzzParquetReader(f *testing.F) {
	d := 1.5
	f.Add(writeParquet(f, []pqItem{
		{ID: "a", Benchmark: "B", Video: "v", Question: "q", Options: []string{"x", "y"}, Answer: 1, Duration: &d, Meta: `{"k":1}`},
		{ID: "b", Benchmark: "B", Video: "v", Question: "q2", Options: []string{"x", "y", "z"}},
	}))
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00\xff\xff\xff\xfaPAR1")) // a 4 GiB footer length
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewParquetReader(bytes.NewReader(data), int64(len(data)), "fuzz.parquet")
		for err == nil {
			var it *Item
			if it, err = r.Read(); err == nil && (it.Answer < 0 || it.Answer >= len(it.Options) || len(it.Options) < 2) {
				t.Fatalf("accepted item breaks the rules: %+v", it)
			}
		}
		var pe *ParseError
		if err != io.EOF && (!errors.As(err, &pe) || pe.File != "fuzz.parquet") {
			t.Fatalf("error %v (%T) is not a *ParseError naming the file", err, err)
		}
	})
}
