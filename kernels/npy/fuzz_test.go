package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead checks that no input makes Read panic or return a matrix whose
// size disagrees with its shape, and that a header promising more data than
// the input holds costs no more than the input (no shape is skipped: the
// reader itself must not trust it).
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.npy"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		m, err := Read(bytes.NewReader(b))
		if err == nil && len(m.Data) != m.Rows*m.Cols {
			t.Fatalf("%dx%d matrix with %d values", m.Rows, m.Cols, len(m.Data))
		}
	})
}
