package harness

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile item files (issue 15): each is refused with a *ParseError that
// names the file and what is wrong, or read correctly; none hangs.

const goodLine = `{"id": "q", "benchmark": "B", "video": "v", "question": "q?", "options": ["a", "b"], "answer": 1}`

func TestReadFilesHostileInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rows := []pqItem{
		{ID: "a", Benchmark: "B", Video: "v", Question: "a question long enough to fill a page", Options: []string{"x", "y"}, Answer: 1},
		{ID: "b", Benchmark: "B", Video: "v", Question: "another question", Options: []string{"x", "y"}},
	}
	pq := writeParquet(t, rows)
	corrupt := bytes.Clone(pq)
	// Overwrite the data pages (after the 4-byte magic, before the footer).
	for i := 8; i < len(corrupt)/2; i++ {
		corrupt[i] = 0xff
	}
	tests := []struct {
		name  string
		path  string
		line  int
		field string
		want  error
		msg   string
	}{
		{"a directory", dir, 0, "", ErrNotAFile, "is a directory"},
		{"Parquet that is not Parquet", write("x.parquet", []byte("PAR1 not really PAR1")), 0, "", ErrParquet, "Parquet"},
		{"a corrupt Parquet page", write("corrupt.parquet", corrupt), 0, "", ErrParquet, "Parquet"},
		{"a duration of 1e999", write("huge.jsonl", []byte(strings.Replace(goodLine, `"answer": 1`, `"answer": 1, "duration": 1e999`, 1))), 1, "duration", ErrBadValue, "1e999 is not a finite number"},
		{"end without start, negative", write("end.jsonl", []byte(strings.Replace(goodLine, `"answer": 1`, `"answer": 1, "end": -3`, 1))), 1, "end", ErrBadValue, "negative end"},
		{"a line over MaxLineBytes", write("long.jsonl", append(bytes.Repeat([]byte(" "), MaxLineBytes+1), '\n')), 1, "", ErrTooLarge, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFiles(context.Background(), []string{tt.path}, ReadOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.want) || pe.File != tt.path || pe.Line != tt.line || pe.Field != tt.field {
				t.Fatalf("got %v; want a ParseError for %s line %d field %q, %v", err, tt.path, tt.line, tt.field, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) || strings.Contains(tt.path, ".parquet") && strings.Contains(err.Error(), "JSON") {
				t.Errorf("message %q does not say %q (or calls Parquet JSON)", err, tt.msg)
			}
		})
	}
}

func TestReadFilesAcceptsAUTF8ByteOrderMark(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "bom.jsonl")
	os.WriteFile(p, []byte("\xEF\xBB\xBF"+goodLine+"\n"), 0o644)
	items, err := ReadFiles(context.Background(), []string{p}, ReadOptions{})
	if err != nil || len(items) != 1 || items[0].ID != "q" {
		t.Fatalf("items %v, err %v", items, err)
	}
}

// TestReadFilesFromAFIFO: a FIFO is read once and hashed as read, and the
// digest is that of the bytes; the file is never opened a second time
// (which blocked forever).
func TestReadFilesFromAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "items.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	content := []byte(goodLine + "\n")
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(content)
		f.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	items, digests, err := ReadFSDigests(ctx, nil, []string{fifo}, ReadOptions{})
	if err != nil || len(items) != 1 {
		t.Fatalf("items %v, err %v", items, err)
	}
	p := filepath.Join(t.TempDir(), "same.jsonl")
	os.WriteFile(p, content, 0o644)
	_, want, _ := ReadFSDigests(ctx, nil, []string{p}, ReadOptions{})
	if digests[0].SHA256 != want[0].SHA256 || digests[0].Size != int64(len(content)) {
		t.Errorf("digest of the FIFO %+v, of the same bytes in a file %+v", digests[0], want[0])
	}
}

// TestReadFilesStopsOnCancel: a FIFO nobody writes to, and an endless
// stream, both end when the context does.
func TestReadFilesStopsOnCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "nobody.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := ReadFiles(ctx, []string{fifo}, ReadOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a FIFO with no writer: %v, want the context's error", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	r := NewJSONLReader(newDigestReader(ctxReader{ctx2, blankLines{}}), "endless.jsonl")
	cancel2()
	if _, err := r.Read(); !errors.Is(err, context.Canceled) {
		t.Errorf("endless blank lines: %v, want context.Canceled", err)
	}
}

// blankLines is an endless stream of newlines.
type blankLines struct{}

func (blankLines) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	return len(p), nil
}

var _ io.Reader = blankLines{}
