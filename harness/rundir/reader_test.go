package rundir

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// TestRecordReaderSaysWhere: a bad line is reported with its line number
// and offset and skipped; a last line without its newline is torn; the
// offset after a record is where the next line starts.
func TestRecordReaderSaysWhere(t *testing.T) {
	first := AppendRecord(nil, &sampleRecords[0])
	second := AppendRecord(nil, &sampleRecords[1])
	var in bytes.Buffer
	in.Write(first)
	in.WriteString("garbage\n")
	in.Write(second)
	in.Write(first[:10])
	r := NewRecordReader(&in)

	rec, err := r.Read()
	if err != nil || !reflect.DeepEqual(rec, sampleRecords[0]) || r.Offset() != int64(len(first)) {
		t.Fatalf("first read: %+v, %v, offset %d", rec, err, r.Offset())
	}
	_, err = r.Read()
	var re *RecordError
	if !errors.As(err, &re) || re.Line != 2 || re.Offset != int64(len(first)) || !errors.Is(err, ErrBadRecord) {
		t.Fatalf("garbage line: %v", err)
	}
	if rec, err = r.Read(); err != nil || !reflect.DeepEqual(rec, sampleRecords[1]) {
		t.Fatalf("read after the bad line: %+v, %v", rec, err)
	}
	_, err = r.Read()
	if !errors.As(err, &re) || re.Line != 4 || !errors.Is(err, ErrTornRecord) {
		t.Fatalf("torn last line: %v", err)
	}
	if _, err = r.Read(); err != io.EOF {
		t.Fatalf("after the end: %v, want io.EOF", err)
	}
}

// TestRecordReaderReadsLongLines: a record longer than the reader's buffer
// reads back whole.
func TestRecordReaderReadsLongLines(t *testing.T) {
	long := sampleRecords[0]
	long.Pred.Scores = make([]float64, 200000)
	for i := range long.Pred.Scores {
		long.Pred.Scores[i] = float64(i) + 0.125
	}
	r := NewRecordReader(bytes.NewReader(AppendRecord(nil, &long)))
	if rec, err := r.Read(); err != nil || !reflect.DeepEqual(rec, long) {
		t.Fatalf("long record: %v", err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after the long record: %v", err)
	}
}
