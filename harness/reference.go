package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"
)

// A ReferenceAnswer is one line of a reference file: the option a reference
// model chose for an item under the full protocol (docs/audit.md: s*).
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
	ref, _, err := ReadReferenceDigest(context.Background(), path, items)
	return ref, err
}

// ReadReferenceDigest is ReadReference that also returns the Digest of the
// bytes read. The file is opened and read once (a pipe or FIFO works), and
// the read stops when ctx ends.
func ReadReferenceDigest(ctx context.Context, path string, items []*Item) (map[string]int, Digest, error) {
	f, err := openCtx(ctx, func(p string) (fs.File, error) { return os.Open(p) }, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Digest{}, ctx.Err()
		}
		return nil, Digest{}, openError(path, err)
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, Digest{}, &ParseError{File: path, Err: fieldError(ErrNotAFile, "is a directory; name a JSONL file")}
	}
	dr := newDigestReader(ctxReader{ctx, f})
	ref, err := readReference(dr, path, items)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Digest{}, ctx.Err()
		}
		return nil, Digest{}, err
	}
	return ref, dr.digest(path), nil
}

func readReference(r io.Reader, name string, items []*Item) (map[string]int, error) {
	byKey := make(map[string]*Item, len(items))
	for _, it := range items {
		byKey[it.Key()] = it
	}
	out := map[string]int{}
	first := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	var read int64
	for line := 1; ; line++ {
		b, err := readBoundedLine(br, &read, name, line)
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			if _, ok := err.(*ParseError); ok {
				return nil, err
			}
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, utf8BOM)
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
