// Package shareddata finds the project's development data for tests: the
// folder shared/data beside the module root (../shared/data from the
// repository root), which holds real items, videos and tokenizers too big
// or too foreign to commit. A clone without it has no such folder, and
// every test that reads it must skip there saying where it looked, or fall
// back to a committed stand-in.
//
// Every test that reads the development data finds it here, so that the
// tests which read it can be found from the code: .ci/run's pass without
// ../shared runs only those (internal/shareddata/sharedtests lists them).
package shareddata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// Root returns the absolute path of shared/data beside the module root:
// the parent of the first folder above the working directory (a test's
// package directory) that holds go.mod. It does not check that the folder
// exists.
func Root() (string, error) {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = filepath.Join(filepath.Dir(dir), "shared", "data")
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				rootErr = errors.New("shareddata: no go.mod above the working directory")
				return
			}
			dir = parent
		}
	})
	return root, rootErr
}

// Lookup returns the absolute path of parts joined under the development
// data folder (the folder itself when none are given), or an error naming
// the path it looked for when that path does not exist. Callers with a
// fallback use it; tests that need the data call Path.
func Lookup(parts ...string) (string, error) {
	dir, err := Root()
	if err != nil {
		return "", err
	}
	p := filepath.Join(append([]string{dir}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("development data not found at %s (the repository's parent holds shared/data): %w", p, err)
	}
	return p, nil
}

// Path returns Lookup's path, or skips tb with Lookup's error when the
// data is absent (a clone without ../shared). It fails tb when no module
// root is found.
func Path(tb testing.TB, parts ...string) string {
	tb.Helper()
	if _, err := Root(); err != nil {
		tb.Fatal(err)
	}
	p, err := Lookup(parts...)
	if err != nil {
		tb.Skip(err)
	}
	return p
}
