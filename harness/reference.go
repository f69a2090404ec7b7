package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// A ReferenceAnswer is one line of a reference file: the option a reference
// model chose for an item under the full protocol (DESIGN.md: s*).
type ReferenceAnswer struct {
	ID        string
	Benchmark string
	Pred      int // 0-based option index
}

// Key matches Item.Key.
func (a *ReferenceAnswer) Key() string { return a.Benchmark + "\x00" + a.ID }

// ReadReference reads a JSON Lines file of reference answers,
// {"id": str, "benchmark": str, "pred": int}, and checks each against the
// run's items: the item must exist and pred must index its options. It
// returns the predictions keyed by Item.Key. Errors are *ParseError values
// naming the line and field, like the item readers'.
func ReadReference(path string, items []*Item) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return readReference(f, path, items)
}

func readReference(r io.Reader, name string, items []*Item) (map[string]int, error) {
	byKey := make(map[string]*Item, len(items))
	for _, it := range items {
		byKey[it.Key()] = it
	}
	out := map[string]int{}
	first := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		fail := func(field string, err error) error {
			return &ParseError{File: name, Line: line, Field: field, Err: err}
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			if !utf8.Valid(b) {
				return nil, fail("", ErrInvalidUTF8)
			}
			return nil, fail("", fieldError(ErrSyntax, "%v", err))
		}
		if !utf8.Valid(b) {
			return nil, fail("", ErrInvalidUTF8)
		}
		d := jsonFields{obj: obj}
		a := ReferenceAnswer{ID: d.str("id", true), Benchmark: d.str("benchmark", true), Pred: d.integer("pred")}
		if d.err != nil {
			return nil, fail(d.field, d.err)
		}
		it, ok := byKey[a.Key()]
		if !ok {
			return nil, fail("id", fieldError(ErrUnknownItem, "no item %q in benchmark %q among the run's items", a.ID, a.Benchmark))
		}
		if a.Pred < 0 || a.Pred >= len(it.Options) {
			return nil, fail("pred", fieldError(ErrAnswerRange, "%d is not an index into the %d options of %s", a.Pred, len(it.Options), it.Source))
		}
		if prev, dup := first[a.Key()]; dup {
			return nil, fail("id", fieldError(ErrDuplicateID, "%q of benchmark %q already answered on line %d", a.ID, a.Benchmark, prev))
		}
		first[a.Key()] = line
		out[a.Key()] = a.Pred
	}
}
