// Package checksum keeps a SHA-256 beside each cache file of a run, so that
// bytes changed on disk after they were written (a flipped bit, a file
// edited or truncated by hand) are found when the file is read, instead of
// flowing into the answers.
//
// The checksum of path is the file path+Ext, in the format of sha256sum
// ("<64 hex digits>  <base name>\n"), so that `sha256sum -c` checks a cache
// by hand. It is kept beside the file, not inside it: a key in a .npy header
// would be refused by the project's own reader, and one checksum format
// serves .npy and .json alike.
//
// Write writes the file and then its checksum, each atomically
// (internal/atomicfile), after removing any old checksum: a write cut short
// leaves a file with no checksum, which Verify reports as absent, never as
// damaged and never as good.
package checksum

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// Ext is the suffix of a checksum file.
const Ext = ".sha256"

// ErrDamaged is what a *DamagedError matches with errors.Is.
var ErrDamaged = errors.New("checksum mismatch")

// A DamagedError is a file whose bytes differ from those its checksum was
// taken of.
type DamagedError struct {
	Path       string
	Want, Have string // hex SHA-256
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s: SHA-256 %s, but %s%s says %s: the file changed after it was written", e.Path, e.Have, filepath.Base(e.Path), Ext, e.Want)
}

func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// Write writes path with what write writes, then its checksum.
func Write(path string, write func(io.Writer) error) error {
	if err := os.Remove(path + Ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	h := sha256.New()
	if err := atomicfile.Write(path, func(w io.Writer) error { return write(io.MultiWriter(w, h)) }); err != nil {
		return err
	}
	line := hex.EncodeToString(h.Sum(nil)) + "  " + filepath.Base(path) + "\n"
	return atomicfile.WriteBytes(path+Ext, []byte(line))
}

// want reads the checksum of path: fs.ErrNotExist when there is none or it
// is not one (a write cut short, or a file written before checksums).
func want(path string) (string, error) {
	b, err := os.ReadFile(path + Ext)
	if err != nil {
		return "", err
	}
	sum, name, ok := bytes.Cut(bytes.TrimSuffix(b, []byte("\n")), []byte("  "))
	if !ok || len(sum) != 2*sha256.Size || string(name) != filepath.Base(path) {
		return "", &DamagedError{Path: path + Ext, Want: "a line <SHA-256>  " + filepath.Base(path), Have: "another line"}
	}
	if _, err := hex.DecodeString(string(sum)); err != nil {
		return "", &DamagedError{Path: path + Ext, Want: "hex digits", Have: string(sum)}
	}
	return string(sum), nil
}

// Verify checks path against its checksum: nil when they agree, an error
// matching fs.ErrNotExist when the file or its checksum is absent, a
// *DamagedError when they disagree.
func Verify(path string) error {
	w, err := want(path)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return check(path, w, h.Sum(nil))
}

// ReadFile reads path whole and checks it as Verify does.
func ReadFile(path string) ([]byte, error) {
	w, err := want(path)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	if err := check(path, w, sum[:]); err != nil {
		return nil, err
	}
	return b, nil
}

func check(path, want string, have []byte) error {
	if h := hex.EncodeToString(have); h != want {
		return &DamagedError{Path: path, Want: want, Have: h}
	}
	return nil
}
