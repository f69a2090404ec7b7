package harness

import (
	"bytes"
	"errors"
	"io"
	"os"
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
	f.Fuzz(func(t *testing.T, data []byte) {
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
