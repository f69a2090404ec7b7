package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/vidscreen/vidscreen/harness"
)

// bom is the UTF-8 byte-order mark Windows editors write before a
// document; encoding/json and encoding/csv refuse it, and it is not part
// of the first field's name.
var bom = []byte("\ufeff")

// A file is an annotation file opened for reading, its byte-order mark
// skipped.
type file struct {
	f *os.File
	r *bufio.Reader
}

func (f *file) Close() error { return f.f.Close() }

// open opens the file at path for reading: a directory, or a file over
// harness.MaxFileBytes, is a *harness.ParseError before a byte is read.
func open(path string) (*file, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, openError(path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: a directory: name the annotation file inside it", harness.ErrNotAFile)}
	}
	if st.Size() > harness.MaxFileBytes {
		f.Close()
		return nil, &harness.ParseError{File: path, Err: fmt.Errorf("%w: the file holds %d bytes, more than %d (MaxFileBytes)", harness.ErrTooLarge, st.Size(), int64(harness.MaxFileBytes))}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		br.Discard(len(bom))
	}
	return &file{f: f, r: br}, nil
}

// openError names the file in an error of the operating system ("no such
// file or directory"), without repeating the path os.PathError holds.
func openError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &harness.ParseError{File: path, Err: err}
}

// readErr is an error reading an open file, which is no fault of its
// contents.
func readErr(path string, err error) error {
	if err == io.EOF {
		return nil
	}
	return fmt.Errorf("read %s: %w", path, err)
}
