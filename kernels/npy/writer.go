package npy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/vidscreen/vidscreen/kernels"
)

// Float32 and Float16 are the dtypes Write can store.
const (
	Float32 = "<f4"
	Float16 = "<f2"
)

// Write writes m as a two-dimensional C-order array of dtype descr
// (Float32 or Float16; float16 rounds to nearest even and overflows to
// infinity past 65504).
func Write(w io.Writer, m *kernels.Matrix, descr string) error {
	if descr != Float32 && descr != Float16 {
		return fmt.Errorf("npy: cannot write dtype %q", descr)
	}
	if _, err := w.Write(formatHeader(Header{Descr: descr, Shape: []int{m.Rows, m.Cols}})); err != nil {
		return err
	}
	data := m.Data[:m.Rows*m.Cols]
	if descr == Float32 && littleEndian && len(data) > 0 {
		_, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data)))
		return err
	}
	size := 4
	if descr == Float16 {
		size = 2
	}
	buf := make([]byte, 1<<16)
	per := len(buf) / size
	for off := 0; off < len(data); off += per {
		in := data[off:min(off+per, len(data))]
		b := buf[:len(in)*size]
		for i, v := range in {
			if size == 4 {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
			} else {
				binary.LittleEndian.PutUint16(b[2*i:], floatToHalf(v))
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes m to path through a temporary file in the same folder
// and a rename, so a crash never leaves a half-written .npy behind.
func WriteFile(path string, m *kernels.Matrix, descr string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = Write(bw, m, descr); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; vidscreen's outputs are 0644.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
