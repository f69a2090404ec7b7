package openai

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// A Store keeps every reply a server gave, so that a run killed at any
// moment and started again asks the server nothing it already answered, and
// reads the same bytes it read the first time: against a real server, that
// is where reproducibility comes from.
//
// The file is append-only JSON Lines, one record a line:
//
//	<crc> {"key":"<sha256 hex>","status":200,"body":"<reply>"}
//
// where crc is the CRC-32C (Castagnoli) of the JSON that follows it, as 8
// lowercase hex digits, and key is requestKey: the SHA-256 of the endpoint
// path and the exact request body (the model name, the messages with their
// images, every parameter). Records are written whole with one write call,
// under a lock, and the file is fsynced before Put returns, so a reply is on
// disk before anything uses it; concurrent Puts share one fsync (group
// commit). A kill can leave only the last record torn: OpenStore drops it
// (and cuts the file back to the last whole record); a bad record followed
// by good ones is corruption, reported with its byte offset. A key has one
// record, except where Replace superseded a record no reader takes: the
// last record of a key is the one read.
//
// OpenStore takes an exclusive lock on the file (flock), released by Close:
// a second writer, in this process or another, is refused rather than left
// to interleave records.
//
// The store holds an index in memory (key to offset) and reads a reply back
// from the file when asked, so its memory is about 50 bytes a reply.
type Store struct {
	path string
	mu   sync.Mutex // guards f's end, index, size
	f    *os.File
	// index maps a key to its record's reply: offset and length of the line.
	index map[[32]byte]span
	size  int64

	syncMu sync.Mutex // one fsync at a time; synced is what the last covered
	synced int64
}

type span struct{ off, n int64 }

// A StoredReply is one reply as the server gave it.
type StoredReply struct {
	Status int
	Body   []byte
}

type storeRecord struct {
	Key    string `json:"key"`
	Status int    `json:"status"`
	Body   string `json:"body"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// requestKey is the store's key of a request: the SHA-256, in hex, of the
// endpoint path, a newline and the body.
func requestKey(path string, body []byte) string {
	h := sha256.New()
	io.WriteString(h, path)
	h.Write([]byte{'\n'})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// OpenStore opens the store at path, creating it if it does not exist, and
// reads its index. A torn last record is dropped and cut from the file.
func OpenStore(path string) (*Store, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open response store: %w", err)
	}
	// One writer at a time: two processes appending at their own idea of
	// the end would overwrite each other's records.
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("response store %s is in use by another run (%w)", path, err)
	}
	s := &Store{path: path, f: f, index: map[[32]byte]span{}}
	good, err := s.load()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Size() != good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, fmt.Errorf("response store %s: drop the torn last record: %w", path, err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("response store %s: %w", path, err)
	}
	s.size, s.synced = good, good
	return s, nil
}

// load reads every record and returns the offset just past the last whole
// one.
func (s *Store) load() (int64, error) {
	r := bufio.NewReaderSize(s.f, 1<<20)
	var off, good int64
	var torn error
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return 0, fmt.Errorf("response store %s: %w", s.path, err)
		}
		key, perr := parseRecordLine(line)
		switch {
		case perr != nil && torn == nil:
			torn = fmt.Errorf("response store %s: record at byte %d: %w", s.path, off, perr)
		case perr != nil:
		case torn != nil:
			// A good record after a bad one: the bad one is not a torn tail.
			return 0, fmt.Errorf("%w (and whole records follow it: the file is corrupt, not torn)", torn)
		default:
			// A later record of a key is a Replace: it is the one used.
			s.index[key] = span{off, int64(len(line))}
			good = off + int64(len(line))
		}
		off += int64(len(line))
		if err == io.EOF {
			break
		}
	}
	return good, nil
}

// parseRecordLine checks one line (with its newline) and returns its key.
func parseRecordLine(line []byte) ([32]byte, error) {
	var key [32]byte
	body, ok := bytes.CutSuffix(line, []byte{'\n'})
	if !ok {
		return key, errors.New("no end of line (torn)")
	}
	sum, js, ok := bytes.Cut(body, []byte{' '})
	if !ok || len(sum) != 8 {
		return key, errors.New("no checksum")
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil {
		return key, fmt.Errorf("checksum %q: %w", sum, err)
	}
	if got := crc32.Checksum(js, castagnoli); got != uint32(want) {
		return key, fmt.Errorf("checksum %08x, computed %08x", want, got)
	}
	var rec storeRecord
	if err := json.Unmarshal(js, &rec); err != nil {
		return key, err
	}
	k, err := hex.DecodeString(rec.Key)
	if err != nil || len(k) != 32 {
		return key, fmt.Errorf("key %q is not a SHA-256", rec.Key)
	}
	copy(key[:], k)
	return key, nil
}

func decodeKey(key string) ([32]byte, error) {
	var k [32]byte
	b, err := hex.DecodeString(key)
	if err != nil || len(b) != 32 {
		return k, fmt.Errorf("response store: key %q is not a SHA-256", key)
	}
	copy(k[:], b)
	return k, nil
}

// Len is how many replies the store holds.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.index)
}

// Get returns the stored reply to the request with key, if there is one.
func (s *Store) Get(key string) (StoredReply, bool, error) {
	k, err := decodeKey(key)
	if err != nil {
		return StoredReply{}, false, err
	}
	s.mu.Lock()
	sp, ok := s.index[k]
	f := s.f
	s.mu.Unlock()
	if !ok {
		return StoredReply{}, false, nil
	}
	if f == nil {
		return StoredReply{}, false, fmt.Errorf("response store %s: closed", s.path)
	}
	line := make([]byte, sp.n)
	if _, err := f.ReadAt(line, sp.off); err != nil {
		return StoredReply{}, false, fmt.Errorf("response store %s: read the record at byte %d: %w", s.path, sp.off, err)
	}
	_, js, _ := bytes.Cut(bytes.TrimSuffix(line, []byte{'\n'}), []byte{' '})
	var rec storeRecord
	if err := json.Unmarshal(js, &rec); err != nil {
		return StoredReply{}, false, fmt.Errorf("response store %s: record at byte %d: %w", s.path, sp.off, err)
	}
	return StoredReply{Status: rec.Status, Body: []byte(rec.Body)}, true, nil
}

// Put appends a reply and returns once it is on disk (fsynced). A key the
// store already holds is left as it is: the first reply is the one used.
func (s *Store) Put(key string, r StoredReply) error { return s.put(key, r, false) }

// Replace appends a reply that supersedes the key's stored one, for a
// record no reader takes (a refusal or a malformed reply an earlier version
// stored): the file keeps both, and the last is the one read back.
func (s *Store) Replace(key string, r StoredReply) error { return s.put(key, r, true) }

func (s *Store) put(key string, r StoredReply, replace bool) error {
	k, err := decodeKey(key)
	if err != nil {
		return err
	}
	js, err := json.Marshal(storeRecord{Key: key, Status: r.Status, Body: string(r.Body)})
	if err != nil {
		return fmt.Errorf("response store: %w", err)
	}
	line := make([]byte, 0, len(js)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(js, castagnoli))
	line = append(line, js...)
	line = append(line, '\n')

	s.mu.Lock()
	if _, ok := s.index[k]; ok && !replace {
		s.mu.Unlock()
		return nil
	}
	if s.f == nil {
		s.mu.Unlock()
		return fmt.Errorf("response store %s: closed", s.path)
	}
	off := s.size
	if _, err := s.f.WriteAt(line, off); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("response store %s: write: %w", s.path, err)
	}
	s.size += int64(len(line))
	end := s.size
	s.mu.Unlock()
	if err := s.syncTo(end); err != nil {
		return err
	}
	// Indexed only once durable, so that Get never serves a reply a crash
	// could still take back.
	s.mu.Lock()
	s.index[k] = span{off, int64(len(line))}
	s.mu.Unlock()
	return nil
}

// syncTo returns once the file is fsynced at least to end; one fsync covers
// every record written before it started.
func (s *Store) syncTo(end int64) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if s.synced >= end {
		return nil
	}
	s.mu.Lock()
	upto := s.size
	s.mu.Unlock()
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("response store %s: fsync: %w", s.path, err)
	}
	s.synced = upto
	return nil
}

// Close closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}
