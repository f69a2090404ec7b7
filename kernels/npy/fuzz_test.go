package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead checks that no input makes Read panic or return a matrix whose
// size disagrees with its shape.
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
		// Skip headers that ask for more memory than the fuzzer should spend.
		if h, err := ReadHeader(bytes.NewReader(b)); err == nil {
			n := 1
			for _, d := range h.Shape {
				if d > 1<<20 || n > 1<<20 {
					return
				}
				n *= d
			}
		}
		m, err := Read(bytes.NewReader(b))
		if err == nil && len(m.Data) != m.Rows*m.Cols {
			t.Fatalf("%dx%d matrix with %d values", m.Rows, m.Cols, len(m.Data))
		}
	})
}
