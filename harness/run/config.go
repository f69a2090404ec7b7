package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// canonicalRoot is the form of a video root config.json keeps: absolute
// and cleaned, so that "--videos W" and "--videos $PWD/W" are one
// configuration, and merge, which runs the shards' audit from the absolute
// paths they recorded (Spec.ShardSpec), finds it equal to
// each shard's. "" (no video root) stays "".
func canonicalRoot(root string) (string, error) {
	if root == "" {
		return "", nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("video root %s: %w", root, err)
	}
	return abs, nil
}

// hashInput fingerprints a predictions file, which regularInput checked.
func hashInput(name string) (rundir.Input, error) {
	f, err := os.Open(name)
	if err != nil {
		return rundir.Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return rundir.Input{}, fmt.Errorf("hash %s: %w", name, err)
	}
	return rundir.Input{Name: filepath.Base(name), SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// regularInput refuses a predictions file that is not a regular file: it
// is read, then hashed, so a FIFO or pipe would be empty (or block) the
// second time. (Items files are hashed as read and may be pipes.)
func regularInput(name string) error {
	st, err := os.Stat(name)
	if err != nil {
		return &harness.ParseError{File: name, Err: err}
	}
	if !st.Mode().IsRegular() {
		return &harness.ParseError{File: name, Err: fmt.Errorf("%w: not a regular file (%v); predictions are read twice (read, then hashed): write them to a file first", harness.ErrNotAFile, st.Mode().Type())}
	}
	return nil
}

// inputOf is the rundir.Input of the bytes a reader consumed.
func inputOf(d harness.Digest) rundir.Input {
	return rundir.Input{Name: filepath.Base(d.Name), SHA256: d.SHA256, Size: d.Size}
}
