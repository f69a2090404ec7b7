package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOffloadMinWorkIsChecked: a cut under one multiply-add is a usage
// error naming the flag, in every command that takes it, before any work.
func TestOffloadMinWorkIsChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, cmd := range []string{"audit", "select"} {
		for _, v := range []string{"0", "-1"} {
			var args []string
			switch cmd {
			case "audit":
				args = []string{"audit", "--out", filepath.Join(dir, "a"), "--offload-min-work", v}
			case "select":
				args = []string{"select", dir, "--out", filepath.Join(dir, "s"), "--budget", "4", "--offload-min-work", v}
			}
			code, _, stderr := runCmd(args...)
			if code != 2 || !strings.Contains(stderr, `invalid value "`+v+`" for flag --offload-min-work: want 1 or more`) {
				t.Errorf("%s --offload-min-work %s: exit %d (%q), want 2 naming the flag", cmd, v, code, stderr)
			}
		}
	}
}
