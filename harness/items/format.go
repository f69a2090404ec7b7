package items

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A Format is one outside layout of a benchmark's items, or of a model's
// replies to them.
type Format struct {
	// Name is what `vidscreen import NAME` takes ("videomme").
	Name string
	// Title names the benchmark or tool as its users know it ("Video-MME").
	Title string
	// Files names the files users have, as `import --list` prints them
	// ("test-00000-of-00001.parquet or videomme.json from lmms-lab/Video-MME").
	Files string
	// Detect reports whether the file at path, whose first bytes (up to
	// 64 KiB) are head, is in this layout. It must be cheap and must not
	// claim another format's files: auto takes the only format that
	// detects a file, and refuses a file two formats claim.
	Detect func(path string, head []byte) bool
	// Read reads the rows of the files at paths. Errors are
	// *harness.ParseError values naming file, line or row, and field.
	Read func(ctx context.Context, paths []string, opt Options) (*Result, error)
}

// Options are the choices a user makes on the command line that change how
// a file is read.
type Options struct {
	// IndexBase says how a digit answer or reply ("0", "1") is read where
	// the layout does not say: 0 or 1, or -1 when the user did not say (a
	// format then refuses an ambiguous digit, naming both readings).
	IndexBase int
	// ItemsFrom says the items will come from another file (import
	// --items-from), joined to the rows by id or position: a record that
	// holds the reply but not its options (an lmms-eval log of a
	// log-likelihood task, whose prompt is the bare question) is then
	// read with none instead of refused.
	ItemsFrom bool
}

// NoOptions are the options of a user who chose nothing: IndexBase -1.
// The zero Options reads digits 0-based; start from NoOptions instead.
func NoOptions() Options { return Options{IndexBase: -1} }

// A Result is what a Format read.
type Result struct {
	Rows []Row
	// Dropped lists the records not imported, each with its reason, in
	// file order.
	Dropped []Drop
}

// A Drop is a record left out of the import, and why.
type Drop struct {
	// Source names the record as "file:line" or "file: row N".
	Source string
	// ID is the record's id where it has one.
	ID string
	// Reason says why, in words ("open-ended: the answer names no option").
	Reason string
	// OpenEnded marks a record whose gold names several options or none:
	// written aside as an open-ended item, not audited.
	OpenEnded bool
	// Record is the record as read, where the format has it: import
	// writes its video, question, options and gold beside the reason in
	// ITEMS.open-ended.jsonl. nil writes the id, source and reason only.
	Record *Row
}

// Lookup returns the format called name.
func Lookup(formats []Format, name string) (Format, error) {
	for _, f := range formats {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("unknown format %q: want %s, or auto", name, strings.Join(Names(formats), ", "))
}

// Names lists the formats' names in order.
func Names(formats []Format) []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
	}
	return names
}

// Detect returns the one format that claims the file at path, whose first
// bytes are head. No format, or more than one, is an error that names them.
func Detect(formats []Format, path string, head []byte) (Format, error) {
	var hits []Format
	for _, f := range formats {
		if f.Detect != nil && f.Detect(path, head) {
			hits = append(hits, f)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return Format{}, fmt.Errorf("%s: no known layout (see vidscreen import --list): name the format instead of auto", path)
	}
	names := Names(hits)
	slices.Sort(names)
	return Format{}, fmt.Errorf("%s: several layouts fit (%s): name the format instead of auto", path, strings.Join(names, ", "))
}
