package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name  string
		write func(io.Writer) error
		want  string // the file's content after the write
		err   error
	}{
		{"replaces the old content", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, "new", nil},
		{"a failed write keeps the old content", func(w io.Writer) error { io.WriteString(w, "half"); return boom }, "old", boom},
		{"an empty file", func(io.Writer) error { return nil }, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.json")
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := Write(path, tt.write)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("content %q, want %q", got, tt.want)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) != 1 {
				t.Errorf("%d entries in the directory, want only the file (no temporary left)", len(ents))
			}
			if fi, err := os.Stat(path); err != nil {
				t.Fatal(err)
			} else if tt.err == nil && fi.Mode().Perm() != Mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), Mode)
			}
		})
	}
}

func TestWriteBytesNamesTheFileOnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "f")
	err := WriteBytes(path, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want one naming %s", err, path)
	}
}
