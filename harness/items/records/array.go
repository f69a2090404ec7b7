package records

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// Array reads the file at path, one JSON array of objects (MVBench's task
// files, EgoSchema's questions.json), record by record; want names the
// records for the errors ("EgoSchema's questions"). A record that starts
// on line 1, as in a file written as one line, is named by its number.
func Array(ctx context.Context, path, want string) ([]*Record, error) {
	w, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := w.Enter('[', want+" as one JSON array"); err != nil {
		return nil, err
	}
	var out []*Record
	for w.More() {
		if len(out)%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rec, err := w.Record("a record")
		if err != nil {
			return nil, err
		}
		rec.numbered = true
		out = append(out, rec)
	}
	if err := w.Leave(); err != nil {
		return nil, err
	}
	return out, w.End()
}

// Lines reads the file at path as JSON Lines: one object a line, blank
// lines skipped, a byte-order mark before the first ignored. The records
// are numbered as Array's are.
func Lines(ctx context.Context, path string) ([]*Record, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*Record
	for n := 1; ; n++ {
		b, rerr := f.r.ReadBytes('\n')
		if len(b) == 0 && rerr != nil {
			return out, readErr(path, rerr)
		}
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if len(b) > harness.MaxLineBytes {
			return nil, &harness.ParseError{File: path, Line: n, Err: fmt.Errorf("%w: a line of %d bytes, more than %d (MaxLineBytes)", harness.ErrTooLarge, len(b), harness.MaxLineBytes)}
		}
		w := newWalkerAt(path, bytes.NewReader(b), n)
		rec, err := w.Record("one JSON object per line")
		if err == nil {
			err = w.End()
		}
		if err != nil {
			return nil, err
		}
		rec.N, rec.numbered = len(out)+1, true
		out = append(out, rec)
	}
}

// Path reads the records a record path names inside the JSON file at
// path: keys separated by dots, "*" taking every key of an object (in
// sorted order, as spec files have always numbered them) or every element of a list, the key a "*" took kept as the
// record's Key ("data.*.*": under data, each video's list of questions).
// An empty path takes the top-level list, or the one list of objects a
// top-level object holds.
func Path(ctx context.Context, path, recordPath string) ([]*Record, error) {
	w, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	var out []*Record
	add := func(r *Record) error {
		if len(out)%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r.N = len(out) + 1
		out = append(out, r)
		return nil
	}
	if recordPath == "" {
		err = w.defaultRecords(add)
	} else {
		err = w.walk(splitPath(recordPath), "", add)
	}
	if err != nil {
		return nil, err
	}
	return out, w.End()
}

func splitPath(p string) []string { return strings.Split(p, ".") }

// walk follows path from the next value, calling add with each record it
// names.
func (w *Walker) walk(path []string, key string, add func(*Record) error) error {
	if len(path) == 0 {
		rec, err := w.Record("a record (set records: to the path of the record list)")
		if err != nil {
			return err
		}
		rec.Key = key
		return add(rec)
	}
	seg := path[0]
	line := w.lines.lineAt(w.dec.InputOffset())
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	switch tok {
	case json.Delim('{'):
		found := false
		type keyed struct {
			key  string
			recs []*Record
		}
		var under []keyed
		for w.More() {
			k, err := w.Key()
			if err != nil {
				return err
			}
			switch {
			case seg == "*":
				kr := keyed{key: k}
				err = w.walk(path[1:], k, func(r *Record) error { kr.recs = append(kr.recs, r); return nil })
				under = append(under, kr)
			case k == seg && !found:
				found = true
				err = w.walk(path[1:], key, add)
			default:
				err = w.Skip()
			}
			if err != nil {
				return err
			}
		}
		if seg != "*" && !found {
			return w.Fail(line, "", fmt.Errorf("%w: records: no key %q", harness.ErrMissingField, seg))
		}
		slices.SortStableFunc(under, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
		for _, kr := range under {
			for _, r := range kr.recs {
				if err := add(r); err != nil {
					return err
				}
			}
		}
		return w.Leave()
	case json.Delim('['):
		if seg != "*" {
			return w.Fail(line, "", fmt.Errorf("%w: records: %q on a list (use *)", harness.ErrFieldType, seg))
		}
		for w.More() {
			if err := w.walk(path[1:], key, add); err != nil {
				return err
			}
		}
		return w.Leave()
	}
	return w.Fail(line, "", fmt.Errorf("%w: records: %q on %s", harness.ErrFieldType, seg, tokenKind(tok)))
}

// defaultRecords takes the top-level list, or the one list of objects a
// top-level object holds.
func (w *Walker) defaultRecords(add func(*Record) error) error {
	line := w.lines.lineAt(w.dec.InputOffset())
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	switch tok {
	case json.Delim('['):
		for w.More() {
			if err := w.walk(nil, "", add); err != nil {
				return err
			}
		}
		return w.Leave()
	case json.Delim('{'):
		type list struct {
			raw  json.RawMessage
			line int
		}
		var found []list
		for w.More() {
			if _, err := w.Key(); err != nil {
				return err
			}
			raw, at, err := w.raw()
			if err != nil {
				return err
			}
			var l []json.RawMessage
			if json.Unmarshal(raw, &l) == nil && len(l) > 0 && Kind(l[0]) == "an object" {
				found = append(found, list{raw, at})
			}
		}
		if err := w.Leave(); err != nil {
			return err
		}
		if len(found) != 1 {
			return w.Fail(line, "", fmt.Errorf("%w: the file is an object, and %d of its keys hold a list of records: set records: (for example \"data.*\", or \"*.*\" for an object of objects)", harness.ErrFieldType, len(found)))
		}
		sub := newWalkerAt(w.name, bytes.NewReader(found[0].raw), found[0].line)
		if err := sub.walk([]string{"*"}, "", add); err != nil {
			return err
		}
		return nil
	}
	return w.Fail(line, "", fmt.Errorf("%w: the file holds %s, not a list of records", harness.ErrFieldType, tokenKind(tok)))
}
