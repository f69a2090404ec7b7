package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWorldSaysTooFew: a 12-video world has families too small for any
// attacker to be significant on; world says which and the fewest --videos
// that gives every family enough, and still writes the world (exit 0).
func TestWorldSaysTooFew(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "w")
	code, _, stderr := runCmd("world", "--out", dir, "--videos", "12", "--min-duration", "3", "--max-duration", "4", "--quiet")
	if code != 0 {
		t.Fatalf("world: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"world: too few items to test", "order 2 < 8", "--videos 36 or more gives every family enough"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
}
