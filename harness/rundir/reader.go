package rundir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
)

var (
	// ErrBadRecord is a line whose length, checksum or syntax is wrong.
	ErrBadRecord = errors.New("bad record")
	// ErrTornRecord is a last line without its newline.
	ErrTornRecord = errors.New("torn record (no newline)")
)

// A RecordError reports a line of RecordsFile that is no record: in a file
// the store wrote, the torn tail of an append cut short.
type RecordError struct {
	Line   int   // 1-based
	Offset int64 // of the line's first byte
	Err    error // ErrBadRecord or ErrTornRecord
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("line %d (byte %d): %v", e.Line, e.Offset, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// A RecordReader reads the records of RecordsFile, one per Read.
type RecordReader struct {
	br     *bufio.Reader
	line   int
	offset int64
}

// NewRecordReader returns a RecordReader reading from r.
func NewRecordReader(r io.Reader) *RecordReader {
	return &RecordReader{br: bufio.NewReaderSize(r, 1<<20)}
}

// Read returns the next record. At the end of the input, after a whole
// line, it returns io.EOF. A line that is no record gives a *RecordError
// and is skipped (the next Read goes on after it); an error of the
// underlying reader is returned as it is.
func (r *RecordReader) Read() (Record, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// A line longer than the buffer: read it whole, keeping what was
		// read before the next read overwrites the buffer.
		line = append([]byte(nil), line...)
		var more []byte
		more, err = r.br.ReadBytes('\n')
		line = append(line, more...)
	}
	if err != nil && err != io.EOF {
		return Record{}, err
	}
	start := r.offset
	r.offset += int64(len(line))
	if err == io.EOF {
		if len(line) == 0 {
			return Record{}, io.EOF
		}
		r.line++
		return Record{}, &RecordError{Line: r.line, Offset: start, Err: ErrTornRecord}
	}
	r.line++
	rec, err := parseRecord(line[:len(line)-1])
	if err != nil {
		return Record{}, &RecordError{Line: r.line, Offset: start, Err: err}
	}
	return rec, nil
}

// Offset is the number of bytes read so far: after a Read without error,
// the end of the record it returned.
func (r *RecordReader) Offset() int64 { return r.offset }

// parseRecord decodes one line (without its newline).
func parseRecord(line []byte) (Record, error) {
	var r Record
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return r, ErrBadRecord
	}
	n, err := strconv.Atoi(string(line[:sp]))
	rest := line[sp+1:]
	if err != nil || len(rest) < 9 || rest[8] != ' ' || len(rest)-9 != n {
		return r, ErrBadRecord
	}
	sum, err := strconv.ParseUint(string(rest[:8]), 16, 32)
	payload := rest[9:]
	if err != nil || uint32(sum) != crc32.ChecksumIEEE(payload) {
		return r, ErrBadRecord
	}
	s := string(payload)
	if r.Key, s, err = quoted(s); err != nil {
		return r, err
	}
	if r.Attacker, s, err = quoted(s); err != nil {
		return r, err
	}
	if r.Input, s, err = quoted(s); err != nil {
		return r, err
	}
	var ints [4]int
	for i := range ints {
		var tok string
		tok, s = field(s)
		if ints[i], err = strconv.Atoi(tok); err != nil {
			return r, ErrBadRecord
		}
	}
	r.Variant, r.Position, r.Pred.Choice = ints[0], ints[1], ints[2]
	if ints[3]&^(recordAbstain|recordFloored) != 0 {
		return r, ErrBadRecord
	}
	r.Pred.Abstain = ints[3]&recordAbstain != 0
	r.Pred.Floored = ints[3]&recordFloored != 0
	if s == "-" {
		return r, nil
	}
	for len(s) > 0 {
		var tok string
		if i := indexByte(s, ','); i >= 0 {
			tok, s = s[:i], s[i+1:]
		} else {
			tok, s = s, ""
		}
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return r, ErrBadRecord
		}
		r.Pred.Scores = append(r.Pred.Scores, v)
	}
	return r, nil
}

func quoted(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil || len(s) == len(q) || s[len(q)] != ' ' {
		return "", "", ErrBadRecord
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", "", ErrBadRecord
	}
	return v, s[len(q)+1:], nil
}

func field(s string) (tok, rest string) {
	if i := indexByte(s, ' '); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
