package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/vidscreen/vidscreen/kernels"
)

// maxHeader bounds the header we are willing to read (numpy's own limit
// for untrusted files is 10,000 bytes).
const maxHeader = 1 << 16

// ReadHeader reads the magic, version and header of a .npy stream, leaving
// r at the first data byte.
func ReadHeader(r io.Reader) (Header, error) {
	h, _, err := readHeader(r)
	return h, err
}

// readHeader is ReadHeader that also returns the bytes it consumed.
func readHeader(r io.Reader) (Header, int64, error) {
	h, n, err := readHeaderBytes(r)
	if err != nil {
		return Header{}, 0, err
	}
	hd, err := parseHeader(string(h))
	return hd, n, err
}

func readHeaderBytes(r io.Reader) ([]byte, int64, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, 0, &FormatError{"magic", fmt.Sprintf("short file: %v", err)}
	}
	if string(pre[:6]) != magic {
		return nil, 0, &FormatError{"magic", "not a .npy file"}
	}
	var hl int
	var consumed int64
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, &FormatError{"header length", err.Error()}
		}
		hl = int(binary.LittleEndian.Uint16(b[:]))
		consumed = 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, 0, &FormatError{"header length", err.Error()}
		}
		hl = int(binary.LittleEndian.Uint32(b[:]))
		consumed = 12
	default:
		return nil, 0, &FormatError{"version", fmt.Sprintf("unsupported format version %d.%d", pre[6], pre[7])}
	}
	if hl > maxHeader {
		return nil, 0, &FormatError{"header length", fmt.Sprintf("%d bytes is too long", hl)}
	}
	buf := make([]byte, hl)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, 0, &FormatError{"header", fmt.Sprintf("short header: %v", err)}
	}
	return buf, consumed + int64(hl), nil
}

// elemSize returns the bytes per element of a supported dtype.
func elemSize(descr string) (int, error) {
	switch descr {
	case "<f4":
		return 4, nil
	case "<f2":
		return 2, nil
	case "<f8":
		return 8, nil
	}
	return 0, &FormatError{"descr", fmt.Sprintf("unsupported dtype %q (want '<f4', '<f2' or '<f8')", descr)}
}

// Read reads a one- or two-dimensional float array from r. A vector of n
// values becomes an n x 1 matrix.
//
// The header's shape is not trusted: the matrix grows as the data arrives, so
// a header that promises more than the stream holds costs no more memory than
// the data present (ReadFile checks the promise against the file's size
// before reading any data).
func Read(r io.Reader) (*kernels.Matrix, error) {
	return readData(r, -1)
}

// readData reads a matrix from r; avail is the number of bytes r holds from
// its start, or -1 when unknown.
func readData(r io.Reader, avail int64) (*kernels.Matrix, error) {
	h, consumed, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	size, err := elemSize(h.Descr)
	if err != nil {
		return nil, err
	}
	var rows, cols int
	switch len(h.Shape) {
	case 1:
		rows, cols = h.Shape[0], 1
	case 2:
		rows, cols = h.Shape[0], h.Shape[1]
	default:
		return nil, &FormatError{"shape", fmt.Sprintf("%d dimensions, want 1 or 2", len(h.Shape))}
	}
	if cols != 0 && rows > math.MaxInt/8/cols {
		return nil, &FormatError{"shape", fmt.Sprintf("%v is too large", h.Shape)}
	}
	want := int64(rows) * int64(cols) * int64(size)
	if avail >= 0 && avail-consumed < want {
		return nil, &FormatError{"shape", fmt.Sprintf("file ends before the data its shape promises: %v of %s needs %d bytes after the header, the file holds %d (truncated, or a wrong header)",
			h.Shape, h.Descr, want, max(avail-consumed, 0))}
	}
	m := &kernels.Matrix{Rows: rows, Cols: cols}
	if avail >= 0 {
		m.Data = make([]float32, rows*cols)
		err = readValues(r, m.Data, size)
	} else {
		m.Data, err = readGrowing(r, rows*cols, size)
	}
	if err != nil {
		return nil, err
	}
	if h.FortranOrder && rows > 1 && cols > 1 {
		t := kernels.NewMatrix(rows, cols)
		for j := 0; j < cols; j++ {
			for i := 0; i < rows; i++ {
				t.Data[i*cols+j] = m.Data[j*rows+i]
			}
		}
		m = t
	}
	return m, nil
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// growChunk is how many values readGrowing adds at a time (64 MiB of
// float32): a stream whose header lies about its shape fails at its end
// having allocated about what it held.
const growChunk = 1 << 24

// readGrowing reads n values of size bytes from a stream of unknown length,
// growing the slice as the data arrives.
func readGrowing(r io.Reader, n, size int) ([]float32, error) {
	data := make([]float32, 0, min(n, growChunk))
	for len(data) < n {
		k := min(growChunk, n-len(data))
		data = slices.Grow(data, k)
		chunk := data[len(data) : len(data)+k]
		if err := readValues(r, chunk, size); err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				return nil, &FormatError{"data", fmt.Sprintf("file ends before the %d values its shape promises", n)}
			}
			return nil, err
		}
		data = data[:len(data)+k]
	}
	return data, nil
}

func readValues(r io.Reader, dst []float32, size int) error {
	short := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &FormatError{"data", fmt.Sprintf("file ends before the %d values its shape promises", len(dst))}
		}
		return fmt.Errorf("npy data: %w", err)
	}
	if size == 4 && littleEndian && len(dst) > 0 {
		// Read straight into the matrix: .npy embeddings run to gigabytes.
		b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst))
		if _, err := io.ReadFull(r, b); err != nil {
			return short(err)
		}
		return nil
	}
	buf := make([]byte, 1<<16)
	per := len(buf) / size
	for off := 0; off < len(dst); off += per {
		n := min(per, len(dst)-off)
		b := buf[:n*size]
		if _, err := io.ReadFull(r, b); err != nil {
			return short(err)
		}
		out := dst[off : off+n]
		switch size {
		case 4:
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case 2:
			for i := range out {
				out[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
			}
		case 8:
			for i := range out {
				out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
			}
		}
	}
	return nil
}

// ReadFile reads a .npy file; errors name the file.
func ReadFile(path string) (*kernels.Matrix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	avail := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		avail = st.Size()
	}
	m, err := readData(bufio.NewReaderSize(f, 1<<20), avail)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}
