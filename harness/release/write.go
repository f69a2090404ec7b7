package release

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// File names of a release directory.
const (
	ItemsFile      = "items.jsonl"
	LockfileFile   = "lockfile.json"
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
)

// Write writes the release into dir (created if needed): items.jsonl (one
// item a line, in the item schema), lockfile.json, report.md and
// report.html. Each file is written to a temporary name and renamed, so a
// file of dir is either the old one or the whole new one.
func (r *Release) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("release directory: %w", err)
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{ItemsFile, r.WriteItems},
		{LockfileFile, r.WriteLockfile},
		{ReportMarkdown, r.WriteMarkdown},
		{ReportHTML, r.WriteHTML},
	}
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

// WriteItems writes the released items as JSON Lines.
func (r *Release) WriteItems(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range r.Items {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("item %s: %w", it.ID, err)
		}
	}
	return nil
}

// WriteLockfile writes the lockfile as indented JSON.
func (r *Release) WriteLockfile(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Lockfile)
}
