package items

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/vidscreen/vidscreen/harness"
)

// ReadLines calls fn with each non-blank line of a JSON Lines file and its
// 1-based number (a byte-order mark before the first line is skipped).
func ReadLines(r io.Reader, name string, fn func(line []byte, n int) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	for n := 1; ; n++ {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("read %s: %w", name, err)
		}
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if err := fn(b, n); err != nil {
			return err
		}
	}
}

// DecodeLine decodes one JSON object, numbers kept exact (json.Number).
func DecodeLine(b []byte, name string, line int) (map[string]any, error) {
	if !utf8.Valid(b) {
		return nil, &harness.ParseError{File: name, Line: line, Err: harness.ErrInvalidUTF8}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		if err == nil {
			err = fmt.Errorf("got null")
		}
		return nil, &harness.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
	}
	// A second value, or anything else, after the object would be lost
	// without a word (two records on one line, a line cut and glued):
	// refused, as the audit's item reader refuses it.
	if rest := bytes.TrimSpace(b[d.InputOffset():]); len(rest) > 0 {
		what := fmt.Sprintf("text after the object (%q)", clip(rest, 40))
		if rest[0] == '{' || rest[0] == '[' {
			what = "a second JSON value on the same line: each record goes on a line of its own"
		}
		return nil, &harness.ParseError{File: name, Line: line, Err: fmt.Errorf("%w: %s", harness.ErrSyntax, what)}
	}
	return m, nil
}

// clip is the first n bytes of b, marked when cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}

// OpenError is a file that cannot be opened, as a *harness.ParseError
// naming it (the path once, not twice as *os.PathError would).
func OpenError(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &harness.ParseError{File: name, Err: err}
}

// Head returns the first bytes of the file at path, up to 64 KiB, for
// Format.Detect.
func Head(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, OpenError(path, err)
	}
	defer f.Close()
	b := make([]byte, 64<<10)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, OpenError(path, err)
	}
	return b[:n], nil
}

// FirstLine is the first non-blank line of head, without its newline;
// whole says whether head held all of it.
func FirstLine(head []byte) (line []byte, whole bool) {
	b := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return bytes.TrimSpace(b[:i]), true
	}
	return bytes.TrimSpace(b), false
}
