package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// A Store is the append-only RecordsFile of a run. Appends from several
// goroutines are serialised; each Append is one write followed by an fsync,
// so that a batch is either on disk in full or cut inside its last line.
type Store struct {
	mu   sync.Mutex
	f    *os.File
	path string
	buf  []byte
}

// OpenStore opens (creating if needed) the record file at path, gives
// visit every valid record in file order and truncates the file after the
// last one: whatever follows it is the torn tail of an interrupted append.
// It returns how many bytes it dropped. An error of visit stops the
// reading and is returned, naming the file.
func OpenStore(path string, visit func(Record) error) (s *Store, dropped int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("open records: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("open records: %w", err)
	}
	rr := NewRecordReader(f)
	var good int64
	for {
		r, rerr := rr.Read()
		var bad *RecordError
		if rerr == io.EOF || errors.As(rerr, &bad) {
			break
		}
		if rerr != nil {
			return nil, 0, fmt.Errorf("read records %s: %w", path, rerr)
		}
		if err := visit(r); err != nil {
			return nil, 0, fmt.Errorf("records %s: %w", path, err)
		}
		good = rr.Offset()
	}
	dropped = st.Size() - good
	if dropped > 0 {
		if err := f.Truncate(good); err != nil {
			return nil, 0, fmt.Errorf("truncate torn records: %w", err)
		}
		if err := f.Sync(); err != nil {
			return nil, 0, fmt.Errorf("sync records: %w", err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return nil, 0, fmt.Errorf("open records: %w", err)
	}
	return &Store{f: f, path: path}, dropped, nil
}

// Append writes recs as one batch and syncs the file.
func (s *Store) Append(recs []Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = s.buf[:0]
	for i := range recs {
		s.buf = AppendRecord(s.buf, &recs[i])
	}
	if _, err := s.f.Write(s.buf); err != nil {
		return fmt.Errorf("append records: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync records: %w", err)
	}
	return nil
}

// Close closes the file.
func (s *Store) Close() error { return s.f.Close() }
