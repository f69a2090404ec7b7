package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// On a real terminal (tmux, 100 columns) an audit shows one line per stage
// and leaves nothing of its live lines after the summary: the screen ends
// with the summary's last line, no line holds two stages, and no line
// wraps. The test drives tmux (send-keys, capture-pane) and skips where
// tmux is not installed.
func TestAuditOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no terminal session")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the terminal rendering is not checked here")
	}
	bin := binary(t)
	dir := t.TempDir()
	items := demoSubset(t, 40)
	done := filepath.Join(dir, "done")
	session := "vidscreen-test-" + filepath.Base(dir)
	sock := filepath.Join(dir, "tmux.sock")
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("new-session", "-d", "-s", session, "-x", "100", "-y", "50", "sh")
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	cmd := bin + " audit --items " + items + " --out " + filepath.Join(dir, "run") + "; touch " + done
	run("send-keys", "-t", session, "clear; "+cmd, "Enter")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit did not end:\n%s", run("capture-pane", "-p", "-t", session))
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the shell's prompt
	var lines []string
	for _, l := range strings.Split(run("capture-pane", "-p", "-J", "-t", session), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			lines = append(lines, l)
		}
	}
	stages := []string{"read ", "embed ", "attack ", "duplicates ", "cards ", "write "}
	last := -1
	for i, l := range lines {
		if strings.Contains(l, "items; outputs in ") {
			last = i
		}
		// A line naming the run directory is as long as its path.
		if len([]rune(l)) > 100 && !strings.Contains(l, dir) {
			t.Errorf("line %d is wider than the terminal: %q", i, l)
		}
		n := 0
		for _, s := range stages {
			if strings.Contains(l, s+" ") || strings.HasPrefix(l, s) {
				n++
			}
		}
		if n > 1 {
			t.Errorf("line %d holds %d stages: %q", i, n, l)
		}
	}
	if last < 0 {
		t.Fatalf("no summary on the screen:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines[last+1:] {
		for _, s := range stages {
			if strings.HasPrefix(l, s) {
				t.Errorf("a stage line after the summary: %q\n%s", l, strings.Join(lines, "\n"))
			}
		}
	}
	t.Logf("the screen:\n%s", strings.Join(lines, "\n"))
	if !strings.Contains(strings.Join(lines, "\n"), "attack     done: ") {
		t.Errorf("the attack stage left no line saying it is done:\n%s", strings.Join(lines, "\n"))
	}
}
