package completion

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// File is the name of the completion record in a run directory.
const File = "complete.json"

// configFile is the file an audit writes first into its run directory
// (harness/rundir's ConfigFile).
const configFile = "config.json"

// A Record is the content of complete.json.
type Record struct {
	// Vidscreen is the version that wrote the outputs.
	Vidscreen string `json:"vidscreen"`
	// Outputs lists the outputs, sorted by name. It leaves out what differs
	// by design between two runs of the same configuration (run.json, the
	// stage timings), so that the record itself is byte-identical across
	// runs and worker counts, as the outputs it names are.
	Outputs []Output `json:"outputs"`

	// hash is the SHA-256 of the record's bytes, set by Check.
	hash string
}

// Hash names the audit whose record Check read: "sha256:" and the SHA-256
// of complete.json, which names every output by its own hash. A screen
// records it, so that select can tell a screen of this audit from one of
// the audit before it was extended or rerun.
func (r *Record) Hash() string { return r.hash }

// An Output is one file of the run directory as the audit left it.
type Output struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// ErrUnfinished is what every *UnfinishedError matches with errors.Is.
var ErrUnfinished = errors.New("the audit did not finish")

// An UnfinishedError refuses a run directory whose outputs are not known to
// be complete together.
type UnfinishedError struct {
	Dir string
	// Why says what is wrong: no record, an output missing, or one whose
	// size or hash differs from the record's.
	Why string
	// Changed says the audit finished and an output changed since (an
	// edited file): "did not finish" would mislead.
	Changed bool
}

func (e *UnfinishedError) Error() string {
	if e.Changed {
		return fmt.Sprintf("%s: an output changed after the audit finished (%s): its outputs no longer come from one run; rerun the same audit command to rebuild them", e.Dir, e.Why)
	}
	return fmt.Sprintf("%s: the audit did not finish (%s): rerun the same audit command to finish it", e.Dir, e.Why)
}

// Is makes errors.Is(err, ErrUnfinished) true.
func (e *UnfinishedError) Is(target error) bool { return target == ErrUnfinished }

// Remove deletes dir's completion record, before the audit changes an
// output: from then on readers refuse the directory until Write runs. A
// directory without a record is not an error.
func Remove(dir string) error {
	err := os.Remove(filepath.Join(dir, File))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the completion record: %w", err)
	}
	return nil
}

// Write hashes the named outputs of dir and writes the record atomically.
// Call it last, after every output is in place (each one synced by its own
// atomic write).
func Write(dir, version string, names []string) error {
	rec := Record{Vidscreen: version, Outputs: []Output{}}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	for _, name := range names {
		o, err := describe(dir, name)
		if err != nil {
			return fmt.Errorf("completion record: %w", err)
		}
		rec.Outputs = append(rec.Outputs, o)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, File), append(b, '\n'))
}

// Check reads dir's completion record and checks every output it names
// against it. It returns an *UnfinishedError when there is no record or an
// output does not match, and another error when the record cannot be read.
func Check(dir string) (*Record, error) {
	path := filepath.Join(dir, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil {
			return nil, serr // no run directory at all: say that, not "unfinished"
		}
		// The audit writes config.json before anything else: without it
		// the directory holds no audit, finished or not.
		if _, serr := os.Stat(filepath.Join(dir, configFile)); errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a run directory of vidscreen audit (no %s, no %s): %w", dir, configFile, File, fs.ErrNotExist)
		}
		return nil, &UnfinishedError{Dir: dir, Why: "no " + File + ", which the audit writes after its last output"}
	}
	if err != nil {
		return nil, err
	}
	var rec Record
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, &UnfinishedError{Dir: dir, Why: fmt.Sprintf("%s does not parse: %v", path, err)}
	}
	sum := sha256.Sum256(b)
	rec.hash = "sha256:" + hex.EncodeToString(sum[:])
	for _, want := range rec.Outputs {
		if filepath.Base(want.Name) != want.Name || want.Name == "." || want.Name == ".." {
			return nil, &UnfinishedError{Dir: dir, Why: fmt.Sprintf("%s: output %q is not a file name", path, want.Name)}
		}
		got, err := describe(dir, want.Name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &UnfinishedError{Dir: dir, Why: want.Name + " is missing"}
		case err != nil:
			return nil, err
		case got.Bytes != want.Bytes:
			return nil, &UnfinishedError{Dir: dir, Changed: true, Why: fmt.Sprintf("%s has %d bytes, the record says %d", want.Name, got.Bytes, want.Bytes)}
		case got.SHA256 != want.SHA256:
			return nil, &UnfinishedError{Dir: dir, Changed: true, Why: fmt.Sprintf("%s differs from its SHA-256 in the record", want.Name)}
		}
	}
	return &rec, nil
}

// describe sizes and hashes dir/name.
func describe(dir, name string) (Output, error) {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return Output{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return Output{}, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return Output{Name: name, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}
