package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"unsafe"
)

// A RowFile reads ranges of rows of a two-dimensional C-order float32
// ('<f4') .npy file by ReadAt, so that a caller holds the rows it works on
// (one benchmark's, one tile of a join) rather than the whole matrix. It
// implements kernels.RowReader and is safe for concurrent reads.
type RowFile struct {
	f          *os.File
	path       string
	rows, cols int
	data       int64 // offset of the first value
}

// OpenRows opens a .npy file for reading by rows. It checks the header and
// that the file holds every row the header promises; only '<f4' C-order
// matrices (what Write and RowWriter make) are read this way.
func OpenRows(path string) (*RowFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := openRows(f, path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return r, nil
}

func openRows(f *os.File, path string) (*RowFile, error) {
	h, consumed, err := readHeader(io.NewSectionReader(f, 0, maxHeader+16))
	if err != nil {
		return nil, err
	}
	if h.Descr != Float32 || h.FortranOrder || len(h.Shape) != 2 {
		return nil, &FormatError{"header", fmt.Sprintf("%s, shape %v, fortran_order %v: rows are read only from a two-dimensional C-order '<f4' array", h.Descr, h.Shape, h.FortranOrder)}
	}
	rows, cols := h.Shape[0], h.Shape[1]
	if cols != 0 && rows > math.MaxInt/8/cols {
		return nil, &FormatError{"shape", fmt.Sprintf("%v is too large", h.Shape)}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if want := consumed + 4*int64(rows)*int64(cols); st.Size() < want {
		return nil, &FormatError{"shape", fmt.Sprintf("file ends before the data its shape promises: %v of <f4 needs %d bytes, the file holds %d (truncated, or a wrong header)", h.Shape, want, st.Size())}
	}
	return &RowFile{f: f, path: path, rows: rows, cols: cols, data: consumed}, nil
}

// Shape returns the rows and columns of the matrix.
func (r *RowFile) Shape() (rows, cols int) { return r.rows, r.cols }

// ReadRows fills dst (a multiple of the column count long) with the rows
// from lo on.
func (r *RowFile) ReadRows(dst []float32, lo int) error {
	if r.cols == 0 || len(dst) == 0 {
		return nil
	}
	n := len(dst) / r.cols
	if len(dst)%r.cols != 0 || lo < 0 || lo+n > r.rows {
		return fmt.Errorf("read %s: rows %d..%d of %d (x %d) into %d values", r.path, lo, lo+n, r.rows, r.cols, len(dst))
	}
	off := r.data + 4*int64(lo)*int64(r.cols)
	if littleEndian {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
		if _, err := r.f.ReadAt(b, off); err != nil {
			return fmt.Errorf("read %s: rows %d..%d: %w", r.path, lo, lo+n, err)
		}
		return nil
	}
	b := make([]byte, 4*len(dst))
	if _, err := r.f.ReadAt(b, off); err != nil {
		return fmt.Errorf("read %s: rows %d..%d: %w", r.path, lo, lo+n, err)
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// Close closes the file.
func (r *RowFile) Close() error { return r.f.Close() }

// A RowWriter writes a rows x cols '<f4' .npy matrix a few rows at a time,
// so that a matrix larger than memory can be written from its parts; the
// bytes are those Write gives for the whole matrix.
type RowWriter struct {
	w          io.Writer
	rows, cols int
	written    int
	buf        []byte
}

// NewRowWriter writes the header of a rows x cols float32 matrix to w.
func NewRowWriter(w io.Writer, rows, cols int) (*RowWriter, error) {
	if _, err := w.Write(formatHeader(Header{Descr: Float32, Shape: []int{rows, cols}})); err != nil {
		return nil, err
	}
	return &RowWriter{w: w, rows: rows, cols: cols}, nil
}

// Write appends whole rows (len(data) a multiple of cols).
func (rw *RowWriter) Write(data []float32) error {
	if rw.cols == 0 {
		return nil
	}
	n := len(data) / rw.cols
	if len(data)%rw.cols != 0 || rw.written+n > rw.rows {
		return fmt.Errorf("npy: %d values do not make whole rows of %d within the %d rows announced (%d written)", len(data), rw.cols, rw.rows, rw.written)
	}
	rw.written += n
	if len(data) == 0 {
		return nil
	}
	if littleEndian {
		_, err := rw.w.Write(unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 4*len(data)))
		return err
	}
	rw.buf = rw.buf[:0]
	for _, v := range data {
		rw.buf = binary.LittleEndian.AppendUint32(rw.buf, math.Float32bits(v))
	}
	_, err := rw.w.Write(rw.buf)
	return err
}

// Close checks that every announced row was written.
func (rw *RowWriter) Close() error {
	if rw.cols != 0 && rw.written != rw.rows {
		return fmt.Errorf("npy: %d of the %d rows announced were written", rw.written, rw.rows)
	}
	return nil
}
