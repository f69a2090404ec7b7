package harness

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast path must agree with the field-by-field one wherever it
		// accepts a line.
		for _, line := range bytes.Split(data, []byte("\n")) {
			r := NewJSONLReader(nil, "fuzz.jsonl")
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
