package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness/release"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/selection"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestSelectServedReaderStore: select --models with a served lm_reader
// re-runs retrieval-reader on the selection through the server, keeping
// the replies in the release directory (cache/served-replies.store; the
// run is left as it was): select run again into the same directory asks
// the server nothing and writes the same lockfile.
func TestSelectServedReaderStore(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 40)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption})
	defer srv.Close()
	dir := servedModels(t, "", srv.BaseURL(), 8)
	run := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", run, "--models", dir, "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	before, _ := os.ReadDir(filepath.Join(run, "cache"))
	out := filepath.Join(t.TempDir(), "release")
	var locks [][]byte
	for k := range 2 {
		srv.Reset()
		code, _, stderr := runWithKey(servedKey, "select", run, "--out", out, "--budget", "8", "--seed", "4", "--rounds", "1", "--accept-residual", "--models", dir)
		if code != 0 {
			t.Fatalf("select %d: exit %d\n%s", k+1, code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, release.LockfileFile))
		if err != nil {
			t.Fatal(err)
		}
		var lock release.Lockfile
		if err := json.Unmarshal(b, &lock); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(lock.RedTeam.Rerun, selection.RetrievalReader) {
			t.Fatalf("select %d re-ran %v, want %s", k+1, lock.RedTeam.Rerun, selection.RetrievalReader)
		}
		asked := len(srv.Requests())
		if k == 0 && asked == 0 {
			t.Error("the first select asked the server nothing")
		}
		if k == 1 && asked != 0 {
			t.Errorf("select run again asked the server %d times, want none", asked)
		}
		locks = append(locks, b)
	}
	if _, err := os.Stat(filepath.Join(out, "cache", runs.ServedStoreFile)); err != nil {
		t.Errorf("the release directory has no response store: %v", err)
	}
	if !bytes.Equal(locks[0], locks[1]) {
		t.Error("the lockfile differs between the two selects")
	}
	after, _ := os.ReadDir(filepath.Join(run, "cache"))
	if len(after) != len(before) {
		t.Errorf("select changed the run's cache: %d entries, %d before", len(after), len(before))
	}
}
