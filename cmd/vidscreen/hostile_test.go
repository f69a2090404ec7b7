package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// The hostile-input suite: small files made by the tests, each a case a
// careful, hostile user tried (issue 15). The rule behind every case: a
// wrong answer never leaves with exit 0, and bad input is exit 2 with a
// message naming the file and what is wrong.

// nearDupRows returns n rows of width d in which rows 2k and 2k+1 are near
// duplicates, so a join at 0.9 finds n/2 pairs.
func nearDupRows(n, d int) *kernels.Matrix {
	m := kernels.NewMatrix(n, d)
	for i := 0; i < n; i++ {
		r := m.Row(i)
		r[(i/2)%d] = 1
		r[(i/2+1)%d] = float32(i/2%7) / 10
		r[(i/2+3)%d] += float32(i%2) / 100
	}
	return m
}

func TestKernelCommandsRefuseHostileInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := nearDupRows(2000, 64)
	goodPath := filepath.Join(dir, "good.npy")
	if err := npy.WriteFile(goodPath, good, npy.Float32); err != nil {
		t.Fatal(err)
	}
	withValue := func(name string, row int, v float32) string {
		m := &kernels.Matrix{Rows: good.Rows, Cols: good.Cols, Data: append([]float32(nil), good.Data...)}
		m.Row(row)[5] = v
		p := filepath.Join(dir, name)
		if err := npy.WriteFile(p, m, npy.Float32); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nanLast := withValue("nan-last.npy", 1999, float32(math.NaN()))
	infFirst := withValue("inf.npy", 3, float32(math.Inf(-1)))
	out := filepath.Join(dir, "pairs.parquet")
	for _, tc := range []struct {
		name string
		args []string
		msg  []string
	}{
		{"neardup with one NaN in the last of 2,000 rows", []string{"neardup", "--a", nanLast, "--out", out}, []string{"nan-last.npy", "row 1999", "NaN"}},
		{"neardup with an infinity in B", []string{"neardup", "--a", goodPath, "--b", infFirst, "--out", out}, []string{"inf.npy", "row 3", "-Inf"}},
		{"vendi with a NaN", []string{"vendi", "--a", nanLast}, []string{"nan-last.npy", "row 1999"}},
		{"vendi with an infinity in the joint file", []string{"vendi", "--a", goodPath, "--b", infFirst}, []string{"inf.npy", "row 3"}},
		{"neardup --tau NaN", []string{"neardup", "--a", goodPath, "--tau", "NaN", "--out", out}, []string{"--tau NaN"}},
		{"neardup --tau Inf", []string{"neardup", "--a", goodPath, "--tau", "-Inf", "--out", out}, []string{"--tau -Inf"}},
		{"neardup --out naming its input", []string{"neardup", "--a", goodPath, "--out", goodPath}, []string{"names the input", "good.npy"}},
		{"neardup --out naming B through another path", []string{"neardup", "--a", nanLast, "--b", goodPath, "--out", filepath.Join(dir, ".", "good.npy")}, []string{"names the input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKernelCommand(t, tc.args...)
			if code != 2 {
				t.Fatalf("exit %d (stdout %q, stderr %q), want 2", code, stdout, stderr)
			}
			for _, m := range tc.msg {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr %q does not say %q", stderr, m)
				}
			}
		})
	}
	// The input named as --out is left as it was.
	m, err := npy.ReadFile(goodPath)
	if err != nil || m.Rows != good.Rows {
		t.Fatalf("the input was damaged: %v", err)
	}
}

// TestVendiHugeOrder: --q 1e308 is a valid order; it used to print +Inf and
// fail. The score tends to the q = inf one.
func TestVendiHugeOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v := writeNpy(t, dir, "v.npy", [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}})
	var scores []float64
	for _, q := range []string{"inf", "1e308", "1e6"} {
		for _, method := range []string{"exact", "slq"} {
			code, stdout, stderr := runKernelCommand(t, "vendi", "--a", v, "--q", q, "--method", method)
			if code != 0 {
				t.Fatalf("--q %s --method %s: exit %d: %s", q, method, code, stderr)
			}
			var sum vendiSummary
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatal(err)
			}
			scores = append(scores, sum.Score)
		}
	}
	for _, s := range scores {
		if math.Abs(s-2) > 1e-4 {
			t.Errorf("scores %v, want each about 2 (1/the largest eigenvalue 1/2)", scores)
			break
		}
	}
}

// TestOutputFileMode: every command writes its outputs 0644 (neardup's
// pairs and .npy files were 0600, the run directory's files 0644).
func TestOutputFileMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeNpy(t, dir, "a.npy", [][]float32{{1, 0}, {1, 0.01}})
	out := filepath.Join(dir, "pairs.parquet")
	if code, _, stderr := runKernelCommand(t, "neardup", "--a", a, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	for _, p := range []string{a, out} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", filepath.Base(p), st.Mode().Perm())
		}
	}
}

func TestFramesHostileInput(t *testing.T) {
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	whole, err := os.ReadFile(video)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.mp4")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"--clip NaN-5", []string{video, "--clip", "NaN-5"}, 2, `"NaN" is not a number`},
		{"--clip 1e300-", []string{video, "--clip", "1e300-"}, 2, "--clip"},
		{"uniform:100000, more than one run writes", []string{video, "--sampler", "uniform:100000"}, 2, "at most 4096"},
		{"a deadline is not bad input", []string{video, "--timeout", "1ns"}, 1, "--timeout"},
		{"an MP4 cut at half", []string{cut, "--sampler", "uniform:8"}, 2, "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(append(append([]string{"frames"}, tc.args...), "--out", t.TempDir())...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

// TestFramesReplacesAnEarlierRun: frames into a folder holding a larger
// earlier set leaves exactly the new set and says what it removed.
func TestFramesReplacesAnEarlierRun(t *testing.T) {
	t.Parallel()
	video := sharedVideo(t, "big_buck_bunny_432_433.webm")
	out := t.TempDir()
	keep := filepath.Join(out, "notes.txt")
	os.WriteFile(keep, []byte("mine"), 0o644)
	if code, _, stderr := runCmd("frames", video, "--sampler", "uniform:6", "--size", "32", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCmd("frames", video, "--sampler", "uniform:2", "--size", "32", "--out", out)
	if code != 0 {
		t.Fatal(stderr)
	}
	names, _ := filepath.Glob(filepath.Join(out, "frame_*.png"))
	if len(names) != 2 || filepath.Base(names[1]) != "frame_001.png" {
		t.Errorf("folder holds %v, want frame_000.png and frame_001.png", names)
	}
	if !strings.Contains(stdout, "removed 4 frames of an earlier run: frame_002.png frame_003.png frame_004.png frame_005.png") {
		t.Errorf("stdout does not say what was removed: %q", stdout)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a file that is not a frame was removed: %v", err)
	}
	if st, err := os.Stat(names[0]); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("frame mode: %v %v", st.Mode(), err)
	}
}

// writeFIFO makes a FIFO and, in the background, writes content to it once
// a reader opens it.
func writeFIFO(t *testing.T, path string, content []byte) {
	t.Helper()
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(content)
		f.Close()
	}()
}

// runWithin runs a command in-process and fails the test instead of
// hanging when it does not return within a minute (the bug was a hang).
func runWithin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var o, e bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &o, stderr: &e, getenv: func(string) string { return "" }}
	code := run(ctx, args, env)
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within a minute", args)
	}
	return code, o.String(), e.String()
}

func TestAuditHostileItems(t *testing.T) {
	dir := t.TempDir()
	items := demoSubset(t, 10)
	content, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "items.jsonl")
	out := filepath.Join(dir, "run")

	// Items through a FIFO (as --items <(...) gives): read once, hashed as
	// read. A resume over other content is refused; over the same, accepted.
	writeFIFO(t, fifo, content)
	if code, _, stderr := runWithin(t, "audit", "--items", fifo, "--out", out, "--levels", "option,text"); code != 0 {
		t.Fatalf("audit of a FIFO: exit %d: %s", code, stderr)
	}
	lines := bytes.SplitAfter(content, []byte("\n"))
	writeFIFO(t, fifo, bytes.Join(lines[:len(lines)-2], nil))
	if code, _, stderr := runWithin(t, "audit", "--items", fifo, "--out", out, "--levels", "option,text"); code != 2 || !strings.Contains(stderr, "different configuration (") || !strings.Contains(stderr, "items] differ)") {
		t.Errorf("resume over other content through the FIFO: exit %d, %q; want 2 naming the items", code, stderr)
	}
	// --levels is a set: another order is the same configuration.
	writeFIFO(t, fifo, content)
	if code, _, stderr := runWithin(t, "audit", "--items", fifo, "--out", out, "--levels", "text,option"); code != 0 {
		t.Errorf("resume with --levels reordered: exit %d: %s", code, stderr)
	}

	for _, tc := range []struct {
		name  string
		items string
		msg   string
	}{
		{"a directory", dir, "is a directory"},
		{"/dev/zero", "/dev/zero", "longer than 16777216 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runWithin(t, "audit", "--items", tc.items, "--out", filepath.Join(dir, "x"))
			if code != 2 || !strings.Contains(stderr, tc.msg) || !strings.Contains(stderr, tc.items) {
				t.Errorf("exit %d, stderr %q; want 2 naming %s and saying %q", code, stderr, tc.items, tc.msg)
			}
		})
	}
}

// TestCommandsStopOnSignals: SIGTERM and SIGINT end a command promptly,
// even one waiting on a FIFO nobody writes to (which ignored SIGTERM).
func TestCommandsStopOnSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	tmp := t.TempDir()
	bin := binary(t)
	fifo := filepath.Join(tmp, "nobody.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		args []string
	}{
		{"audit --items FIFO, SIGTERM", syscall.SIGTERM, []string{"audit", "--items", fifo, "--out", filepath.Join(tmp, "a")}},
		{"audit --items FIFO, SIGINT", syscall.SIGINT, []string{"audit", "--items", fifo, "--out", filepath.Join(tmp, "b")}},
		{"frames of a whole video, SIGTERM", syscall.SIGTERM, []string{"frames", video, "--sampler", "fps:24", "--size", "native", "--threads", "1", "--out", filepath.Join(tmp, "f")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// A signal that comes before main installs its handler kills
			// the process outright, which is the test's race, not the
			// program's: wait until it blocks on the FIFO or has spent CPU
			// decoding. No timing is asserted.
			if err := waitStarted(cmd.Process.Pid, time.Minute); err != nil {
				cmd.Process.Kill()
				t.Fatal(err)
			}
			cmd.Process.Signal(tc.sig)
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted") {
					t.Errorf("after %v: %v, stderr %q; want exit 1, interrupted", tc.sig, err, stderr.String())
				}
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after %v", tc.sig)
			}
		})
	}
}

// waitStarted waits until process pid is past its start: one of its
// threads blocked opening a FIFO (wchan wait_for_partner, fifo_open on older
// kernels) or 2 s of CPU spent. Starting takes about 0.4 s of CPU (the
// dynamic libraries, the runtime); decoding the test's video takes 25.
func waitStarted(pid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		for _, task := range tasks {
			if wchan, err := os.ReadFile(task); err == nil {
				if w := string(wchan); w == "wait_for_partner" || w == "fifo_open" {
					return nil
				}
			}
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return fmt.Errorf("process %d: %w", pid, err)
		}
		// Fields after the command's closing parenthesis: state is the
		// first, utime and stime (clock ticks, 100 a second) the 12th and 13th.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.Atoi(f[11])
			s, _ := strconv.Atoi(f[12])
			if u+s >= 200 {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("process %d neither blocked on its FIFO nor spent 2 s of CPU in %v", pid, limit)
}

// TestContactSheetIsBounded: thousands of frames shrink their tiles; a few
// keep their size.
func TestContactSheetIsBounded(t *testing.T) {
	frame := func(w, h int) decode.Frame {
		return decode.Frame{Width: w, Height: h, RGB: make([]byte, 3*w*h)}
	}
	few := contactSheet([]decode.Frame{frame(100, 60), frame(100, 60)}, make([]time.Duration, 2))
	if got := few.Bounds(); got.Dx() != 2*(100+4)+4 || got.Dy() != 60+8 {
		t.Errorf("two 100x60 frames: sheet %v", got)
	}
	many := make([]decode.Frame, 4096)
	for i := range many {
		many[i] = frame(398, 224)
	}
	if got := contactSheet(many, make([]time.Duration, len(many))).Bounds(); got.Dx() > maxSheetSide || got.Dy() > maxSheetSide {
		t.Errorf("4,096 frames of 398x224: sheet %v, want at most %d a side", got, maxSheetSide)
	}
}

// TestProbeSaysTruncated: an MP4 (index first) cut at half its size used to
// probe as complete.
func TestProbeSaysTruncated(t *testing.T) {
	t.Parallel()
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	dir := t.TempDir()
	fast := filepath.Join(dir, "fast.mp4")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-i", video, "-c", "copy", "-movflags", "+faststart", fast).CombinedOutput(); err != nil {
		t.Skipf("ffmpeg: %v %s", err, out)
	}
	b, _ := os.ReadFile(fast)
	cut := filepath.Join(dir, "cut.mp4")
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	code, stdout, stderr := runCmd("probe", cut)
	if code != 2 || !strings.Contains(stdout, "TRUNCATED") || !strings.Contains(stderr, "cut.mp4: truncated") || !strings.Contains(stderr, "readable:") {
		t.Errorf("probe of a cut MP4: exit %d, stdout %q, stderr %q; want 2 and what is readable", code, stdout, stderr)
	}
	code, stdout, _ = runCmd("probe", "--json", cut)
	if code != 2 || !strings.Contains(stdout, `"truncated":true`) || !strings.Contains(stdout, `"readable_frames"`) {
		t.Errorf("probe --json of a cut MP4: exit %d, %q", code, stdout)
	}
	if code, _, stderr := runCmd("probe", fast); code != 0 {
		t.Errorf("the whole file: exit %d: %s", code, stderr)
	}
}
