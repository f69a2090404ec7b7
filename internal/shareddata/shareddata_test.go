package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootIsSharedDataBesideTheModule(t *testing.T) {
	t.Parallel()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// This package is internal/shareddata: the module root is two up.
	want := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(wd))), "shared", "data")
	if root != want {
		t.Errorf("Root() = %s, want %s", root, want)
	}
}

func TestLookupNamesThePathItLookedFor(t *testing.T) {
	t.Parallel()
	_, err := Lookup("no-such-folder", "x.jsonl")
	if err == nil {
		t.Fatal("Lookup of a missing file: no error")
	}
	if !strings.Contains(err.Error(), filepath.Join("shared", "data", "no-such-folder", "x.jsonl")) {
		t.Errorf("error %q does not name the path looked for", err)
	}
}
