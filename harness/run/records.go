package run

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/vidscreen/vidscreen/harness/attack"
)

// A Record is one stored prediction: attacker Attacker's answer on variant
// (order) Variant to the item with key Key, answered at Position of that
// order.
type Record struct {
	Key      string // harness.Item.Key
	Attacker string
	// Input names what the answer read beyond what config.json fixes: for
	// an attacker that reads frames, the item's video bytes and the models
	// that made its features (videoInput), so that an answer is never
	// served for other bytes or models than it read; "" for the others.
	Input    string
	Variant  int
	Position int
	Pred     attack.Prediction
}

// Records are stored one per line, each line checking itself:
//
//	<payload length> <CRC-32 (IEEE) of the payload, 8 hex digits> <payload>\n
//
// and the payload is space-separated: the quoted item key, the quoted
// attacker, the quoted input (Record.Input), variant, position, choice, the
// answer's flags (1 when it abstained, plus 2 when it was floored,
// Prediction.Floored: a file written before the flag read back the same,
// its 0 and 1 meaning what they meant), and the scores
// joined by commas (shortest decimal that reads back to the same float64,
// "NaN", "+Inf" or "-Inf"; "-" when there are none). A line whose length,
// checksum or syntax is wrong is never read back as a record: it can only be
// the torn tail of a write cut short, and the store truncates the file before
// it.

// appendRecord encodes r as one line onto dst; scratch is reused for the
// payload between calls.
func appendRecord(dst []byte, scratch *[]byte, r *Record) []byte {
	payload := (*scratch)[:0]
	defer func() { *scratch = payload }()
	payload = strconv.AppendQuoteToASCII(payload, r.Key)
	payload = append(payload, ' ')
	payload = strconv.AppendQuoteToASCII(payload, r.Attacker)
	payload = append(payload, ' ')
	payload = strconv.AppendQuoteToASCII(payload, r.Input)
	payload = append(payload, ' ')
	payload = strconv.AppendInt(payload, int64(r.Variant), 10)
	payload = append(payload, ' ')
	payload = strconv.AppendInt(payload, int64(r.Position), 10)
	payload = append(payload, ' ')
	payload = strconv.AppendInt(payload, int64(r.Pred.Choice), 10)
	payload = append(payload, ' ')
	payload = strconv.AppendInt(payload, int64(recordFlags(r.Pred)), 10)
	payload = append(payload, ' ')
	for i, s := range r.Pred.Scores {
		if i > 0 {
			payload = append(payload, ',')
		}
		payload = strconv.AppendFloat(payload, s, 'g', -1, 64)
	}
	if len(r.Pred.Scores) == 0 {
		payload = append(payload, '-')
	}
	dst = strconv.AppendInt(dst, int64(len(payload)), 10)
	dst = append(dst, ' ')
	dst = appendHex8(dst, crc32.ChecksumIEEE(payload))
	dst = append(dst, ' ')
	dst = append(dst, payload...)
	return append(dst, '\n')
}

// The bits of a record's flags field.
const (
	recordAbstain = 1 // Prediction.Abstain
	recordFloored = 2 // Prediction.Floored
)

// recordFlags is the flags field of p.
func recordFlags(p attack.Prediction) int {
	f := 0
	if p.Abstain {
		f |= recordAbstain
	}
	if p.Floored {
		f |= recordFloored
	}
	return f
}

func appendHex8(dst []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	for s := 28; s >= 0; s -= 4 {
		dst = append(dst, digits[(v>>uint(s))&0xf])
	}
	return dst
}

var errBadRecord = errors.New("bad record")

// parseRecord decodes one line (without its newline).
func parseRecord(line []byte) (Record, error) {
	var r Record
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return r, errBadRecord
	}
	n, err := strconv.Atoi(string(line[:sp]))
	rest := line[sp+1:]
	if err != nil || len(rest) < 9 || rest[8] != ' ' || len(rest)-9 != n {
		return r, errBadRecord
	}
	sum, err := strconv.ParseUint(string(rest[:8]), 16, 32)
	payload := rest[9:]
	if err != nil || uint32(sum) != crc32.ChecksumIEEE(payload) {
		return r, errBadRecord
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
			return r, errBadRecord
		}
	}
	r.Variant, r.Position, r.Pred.Choice = ints[0], ints[1], ints[2]
	if ints[3]&^(recordAbstain|recordFloored) != 0 {
		return r, errBadRecord
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
			return r, errBadRecord
		}
		r.Pred.Scores = append(r.Pred.Scores, v)
	}
	return r, nil
}

func quoted(s string) (string, string, error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil || len(s) == len(q) || s[len(q)] != ' ' {
		return "", "", errBadRecord
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", "", errBadRecord
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

// recordBatch is how many records a unit appends at once: one write and
// one fsync per batch, and no more than a batch encoded in memory.
const recordBatch = 1 << 13

// A store is the append-only record file of a run. Appends from several
// goroutines are serialised; each Append is one write followed by an fsync,
// so that a batch is either on disk in full or cut inside its last line.
type store struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	buf     []byte
	scratch []byte
}

// openStore opens (creating if needed) the record file at path, reads every
// valid record and truncates the file after the last one: whatever follows
// it is the torn tail of an interrupted append. It returns the records in
// file order and how many bytes it dropped.
func openStore(path string, visit func(Record) error) (s *store, dropped int64, err error) {
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
	br := bufio.NewReaderSize(f, 1<<20)
	var good int64
	for {
		line, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			// A line longer than the buffer: read it whole.
			more, rerr2 := br.ReadBytes('\n')
			line = append(append([]byte(nil), line...), more...)
			rerr = rerr2
		}
		if rerr != nil && rerr != io.EOF {
			return nil, 0, fmt.Errorf("read records %s: %w", path, rerr)
		}
		if rerr == io.EOF {
			break // a last line without its newline is torn
		}
		r, perr := parseRecord(line[:len(line)-1])
		if perr != nil {
			break
		}
		if err := visit(r); err != nil {
			return nil, 0, fmt.Errorf("records %s: %w", path, err)
		}
		good += int64(len(line))
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
	return &store{f: f, path: path}, dropped, nil
}

// Append writes recs as one batch and syncs the file.
func (s *store) Append(recs []Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = s.buf[:0]
	for i := range recs {
		s.buf = appendRecord(s.buf, &s.scratch, &recs[i])
	}
	if _, err := s.f.Write(s.buf); err != nil {
		return fmt.Errorf("append records: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync records: %w", err)
	}
	return nil
}

func (s *store) Close() error { return s.f.Close() }
