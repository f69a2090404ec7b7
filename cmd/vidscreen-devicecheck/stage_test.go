package main

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeviceStageScript runs scripts/device-stage.sh end to end on three
// small random libraries cut into 200 KiB parts: split, status with
// nothing staged, parts taken one run each (device-check.sh --stage for
// the first) in any order, a corrupted part and a stranger refused naming
// them, the missing ones reported, then the libraries unpacked equal to
// the sources and status saying so; a second split keeps the parts.
func TestDeviceStageScript(t *testing.T) {
	for _, tool := range []string{"bash", "xz", "tar", "sha256sum", "split"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, out, stage := filepath.Join(dir, "src"), filepath.Join(dir, "out"), filepath.Join(dir, "stage")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	libs := []string{"libonnxruntime.so", "libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so"}
	for _, l := range libs {
		b := make([]byte, 300_000)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, l), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(script string, args ...string) (string, error) {
		cmd := exec.Command("bash", append([]string{filepath.Join(root, "scripts", script)}, args...)...)
		cmd.Env = append(os.Environ(), "DEVICE_STAGE_PART_SIZE=200k", "VIDSCREEN_ORT_STAGE="+stage)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		return buf.String(), err
	}
	part := func(n string) string { return filepath.Join(out, "part-"+n) }
	if msg, err := run("device-stage.sh", "split", src, out); err != nil || !strings.Contains(msg, "5 parts in "+out) {
		t.Fatalf("split: %v\n%s", err, msg)
	}
	good, err := os.ReadFile(part("02"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[1000] ^= 1
	stranger := filepath.Join(out, "part-09")
	if err := os.WriteFile(stranger, good, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name   string
		script string
		args   []string
		before func()
		fails  bool
		want   string
	}{
		{name: "status, nothing staged", script: "device-stage.sh", args: []string{"status"}, fails: true, want: "not staged: 0"},
		{name: "the second part", script: "device-check.sh", args: []string{"--stage", part("01")}, want: "part-01 in (1 of 5 parts); missing: part-00 part-02 part-03 part-04"},
		{name: "status, one part in", script: "device-stage.sh", args: []string{"status"}, fails: true, want: "not staged: 1 of 5 parts in " + stage + "; missing: part-00 part-02 part-03 part-04"},
		{name: "a corrupted part", script: "device-stage.sh", args: []string{"take", part("02")}, fails: true, want: part("02") + ": sha256 and size",
			before: func() { write(t, part("02"), bad) }},
		{name: "a part the manifest lacks", script: "device-stage.sh", args: []string{"take", stranger}, fails: true, want: stranger + ": not a part that"},
		{name: "the first part", script: "device-stage.sh", args: []string{"take", part("00")}, want: "part-00 in (2 of 5 parts); missing: part-02 part-03 part-04",
			before: func() { write(t, part("02"), good) }},
		{name: "the fourth", script: "device-stage.sh", args: []string{"take", part("03")}, want: "(3 of 5 parts); missing: part-02 part-04"},
		{name: "the last", script: "device-stage.sh", args: []string{"take", part("04")}, want: "(4 of 5 parts); missing: part-02"},
		{name: "the third, then unpacked", script: "device-stage.sh", args: []string{"take", part("02")}, want: "complete: " + strings.Join(libs, " ") + " in " + stage + "/lib, SHA-256 checked"},
		{name: "status, staged", script: "device-stage.sh", args: []string{"status"}, want: "staged in " + stage + "/lib from 5 parts"},
		{name: "a part again", script: "device-stage.sh", args: []string{"take", part("00")}, want: "already complete"},
		{name: "split again", script: "device-stage.sh", args: []string{"split", src, out}, want: "already stages"},
	} {
		if step.before != nil {
			step.before()
		}
		msg, err := run(step.script, step.args...)
		if (err != nil) != step.fails || !strings.Contains(msg, step.want) {
			t.Fatalf("%s: error %v (want failure %v), output:\n%s\nwant %q", step.name, err, step.fails, msg, step.want)
		}
	}
	for _, l := range libs {
		a, _ := os.ReadFile(filepath.Join(src, l))
		b, err := os.ReadFile(filepath.Join(stage, "lib", l))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: staged copy differs from the source (%v)", l, err)
		}
	}
	if _, err := os.Stat(filepath.Join(stage, "parts")); !os.IsNotExist(err) {
		t.Errorf("the parts stay after unpacking (%v)", err)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
