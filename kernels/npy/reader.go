package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unsafe"

	"github.com/vidscreen/vidscreen/kernels"
)

// maxHeader bounds the header we are willing to read (numpy's own limit
// for untrusted files is 10,000 bytes).
const maxHeader = 1 << 16

// ReadHeader reads the magic, version and header of a .npy stream, leaving
// r at the first data byte.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return Header{}, &FormatError{"magic", fmt.Sprintf("short file: %v", err)}
	}
	if string(pre[:6]) != magic {
		return Header{}, &FormatError{"magic", "not a .npy file"}
	}
	var hl int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, &FormatError{"header length", err.Error()}
		}
		hl = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, &FormatError{"header length", err.Error()}
		}
		hl = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return Header{}, &FormatError{"version", fmt.Sprintf("unsupported format version %d.%d", pre[6], pre[7])}
	}
	if hl > maxHeader {
		return Header{}, &FormatError{"header length", fmt.Sprintf("%d bytes is too long", hl)}
	}
	buf := make([]byte, hl)
	if _, err := io.ReadFull(r, buf); err != nil {
		return Header{}, &FormatError{"header", fmt.Sprintf("short header: %v", err)}
	}
	return parseHeader(string(buf))
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
func Read(r io.Reader) (*kernels.Matrix, error) {
	h, err := ReadHeader(r)
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
	m := kernels.NewMatrix(rows, cols)
	if err := readData(r, m.Data, size); err != nil {
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

func readData(r io.Reader, dst []float32, size int) error {
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
	m, err := Read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}
