package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

func ramp(rows, cols int) *kernels.Matrix {
	m := kernels.NewMatrix(rows, cols)
	for i := range m.Data {
		m.Data[i] = float32(i)*0.25 - 3
	}
	return m
}

// TestRowWriterMatchesWrite checks that a matrix written a few rows at a
// time has the bytes of Write, and that RowFile reads back exactly the rows
// asked for, at any offset.
func TestRowWriterMatchesWrite(t *testing.T) {
	t.Parallel()
	for _, shape := range [][2]int{{0, 4}, {1, 3}, {37, 5}, {100, 64}} {
		m := ramp(shape[0], shape[1])
		var whole, parts bytes.Buffer
		if err := Write(&whole, m, Float32); err != nil {
			t.Fatal(err)
		}
		rw, err := NewRowWriter(&parts, m.Rows, m.Cols)
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < m.Rows; lo += 7 {
			hi := min(lo+7, m.Rows)
			if err := rw.Write(m.Data[lo*m.Cols : hi*m.Cols]); err != nil {
				t.Fatal(err)
			}
		}
		if err := rw.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole.Bytes(), parts.Bytes()) {
			t.Fatalf("%v: RowWriter's bytes differ from Write's", shape)
		}
		path := filepath.Join(t.TempDir(), "m.npy")
		if err := os.WriteFile(path, parts.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		rf, err := OpenRows(path)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := rf.Shape(); r != m.Rows || c != m.Cols {
			t.Fatalf("shape %dx%d, want %dx%d", r, c, m.Rows, m.Cols)
		}
		for _, span := range [][2]int{{0, m.Rows}, {0, min(1, m.Rows)}, {m.Rows / 3, m.Rows / 2}, {max(m.Rows-1, 0), m.Rows}} {
			got, err := kernels.ReadMatrix(rf, span[0], span[1])
			if err != nil {
				t.Fatal(err)
			}
			if want := m.Data[span[0]*m.Cols : span[1]*m.Cols]; !slices.Equal(got.Data, want) {
				t.Errorf("%v rows %v: got %v, want %v", shape, span, got.Data, want)
			}
		}
		if m.Rows > 0 {
			if err := rf.ReadRows(make([]float32, 2*m.Cols), m.Rows-1); err == nil || !strings.Contains(err.Error(), "m.npy") {
				t.Errorf("a read past the end: got %v", err)
			}
		}
		rf.Close()
	}
}

func TestRowWriterCounts(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rw, err := NewRowWriter(&b, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Write(make([]float32, 4)); err == nil {
		t.Error("a partial row was accepted")
	}
	if err := rw.Write(make([]float32, 3)); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err == nil {
		t.Error("Close accepted 1 of 2 rows")
	}
	if err := rw.Write(make([]float32, 6)); err == nil {
		t.Error("more rows than announced were accepted")
	}
}

func TestOpenRowsRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := Write(&b, ramp(10, 4), Float32); err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.npy")
	os.WriteFile(trunc, b.Bytes()[:b.Len()-5], 0o644)
	var h bytes.Buffer
	if err := Write(&h, ramp(10, 4), Float16); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(dir, "half.npy")
	os.WriteFile(half, h.Bytes(), 0o644)
	for path, want := range map[string]string{trunc: "file ends before", half: "<f2", filepath.Join(dir, "none.npy"): "no such file"} {
		if _, err := OpenRows(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %q", filepath.Base(path), err, want)
		}
	}
}
