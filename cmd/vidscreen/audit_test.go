package main

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness/demo"
	runs "github.com/vidscreen/vidscreen/harness/run"
)

// demoSubset writes the first n lines of each embedded default file (real
// annotations) to one JSONL file.
func demoSubset(t *testing.T, n int) string {
	t.Helper()
	var buf bytes.Buffer
	for _, name := range demo.Items() {
		f, err := demo.FS().Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for i := 0; i < n && sc.Scan(); i++ {
			buf.Write(sc.Bytes())
			buf.WriteByte('\n')
		}
		f.Close()
	}
	p := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runAudit(args ...string) (code int, stdout, stderr string) {
	return runCmd(append([]string{"audit"}, args...)...)
}

func TestAuditExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id": "x", "benchmark": "B", "video": "v", "question": "q", "options": ["a", "b"], "answer": 5}`+"\n"), 0o644)
	items := demoSubset(t, 20)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no --out", []string{"--items", items}, 2, "--out DIR is required"},
		{"an unknown level", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--levels", "option,vibes"}, 2, `unknown level "vibes"`},
		{"a video level", []string{"--items", items, "--out", filepath.Join(dir, "a"), "--levels", "frame"}, 2, "needs video models"},
		{"a stray argument", []string{"--out", filepath.Join(dir, "a"), items}, 2, "unexpected arguments"},
		{"an answer out of range", []string{"--items", items, "--items", bad, "--out", filepath.Join(dir, "b")}, 2, bad + ":1: field answer: answer out of range"},
		{"a missing file", []string{"--items", filepath.Join(dir, "nope.jsonl"), "--out", filepath.Join(dir, "c")}, 2, "nope.jsonl: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runAudit(tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
	for _, d := range []string{"a", "b", "c"} {
		if _, err := os.Stat(filepath.Join(dir, d)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a refused run created %s", d)
		}
	}
	out := filepath.Join(dir, "ok")
	code, stdout, stderr := runAudit("--items", items, "--out", out, "--workers", "2", "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, b := range []string{"NExT-QA", "Social-IQ-2.0", "STAR", "VideoHallucer", "eps pool", "cards.json"} {
		if !strings.Contains(stdout, b) {
			t.Errorf("summary lacks %q:\n%s", b, stdout)
		}
	}
	if stderr != "" {
		t.Errorf("stderr is not a terminal, yet the run wrote %q", stderr)
	}
	code, _, stderr = runAudit("--items", items, "--out", out, "--seed", "6")
	if code != 2 || !strings.Contains(stderr, "different configuration ([seed] differ)") {
		t.Errorf("resuming with another seed: exit %d, %q", code, stderr)
	}
}

func TestAuditHelpDocumentsEveryFlag(t *testing.T) {
	code, stdout, _ := runAudit("--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-items", "-out", "-levels", "-reference", "-seed", "-workers", "-video-root", "Exit status"} {
		if !strings.Contains(stdout, f) {
			t.Errorf("help lacks %s", f)
		}
	}
}

// TestAuditSurvivesSIGKILL builds the real binary, kills `vidscreen audit`
// with SIGKILL at several moments of one run directory (while embedding,
// then after a quarter, three fifths and nearly all of the records), resumes
// each time, and checks that the outputs are byte-identical to those of an
// uninterrupted run.
func TestAuditSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary several times")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "vidscreen")
	if out, err := exec.Command(goBin, "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	items := demoSubset(t, 250) // 1,000 real items over four benchmarks
	args := func(out string) []string {
		return []string{"audit", "--items", items, "--out", out, "--workers", "2", "--seed", "11"}
	}
	whole := filepath.Join(tmp, "whole")
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	st, err := os.Stat(filepath.Join(whole, runs.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	full := st.Size()

	cut := filepath.Join(tmp, "cut")
	kills := 0
	for _, frac := range []float64{-1, 0.25, 0.6, 0.97} {
		cmd := exec.Command(bin, args(cut)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		start := time.Now()
		var killed bool
	wait:
		for {
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("run before kill at %.2f failed: %v", frac, err)
				}
				break wait
			case <-time.After(time.Millisecond):
			}
			ready := time.Since(start) > 30*time.Millisecond
			if frac >= 0 {
				st, err := os.Stat(filepath.Join(cut, runs.RecordsFile))
				ready = err == nil && float64(st.Size()) >= frac*float64(full)
			}
			if ready {
				cmd.Process.Signal(syscall.SIGKILL)
				err := <-exited
				killed = err != nil // nil: it finished before the signal landed
				break wait
			}
		}
		if killed {
			kills++
		}
		t.Logf("kill at %.2f of the records after %v: killed=%v", frac, time.Since(start).Round(time.Millisecond), killed)
	}
	if kills < 2 {
		t.Fatalf("only %d of 4 kills landed while the run was going", kills)
	}
	if out, err := exec.Command(bin, args(cut)...).CombinedOutput(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	for _, name := range []string{runs.ConfigFile, runs.CardsJSON, runs.CardsMarkdown, runs.IndexHTML, runs.ItemsParquet, runs.DuplicatesFile} {
		a, err := os.ReadFile(filepath.Join(whole, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(cut, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s after %d kills differs from the uninterrupted run's", name, kills)
		}
	}
}
