package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorldWritesAWorld(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCmd("world", "--out", dir, "--seed", "3", "--videos", "9", "--min-duration", "1", "--max-duration", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"items.jsonl", "truth.json", "videos/w0000.mp4", "videos/w0008.mp4"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
	}
	if !strings.Contains(out, "option-artifact") || !strings.Contains(out, "9 videos") {
		t.Fatalf("summary:\n%s", out)
	}
	if strings.Contains(errOut, "libx264") {
		t.Fatalf("FFmpeg's encoder log reached stderr:\n%s", errOut)
	}
	// The world's models load and have the roles' input and output names.
	if code, out, errOut := runCmd("models", "check", "--roles", "image_text,captioner", filepath.Join(dir, "models")); code != 0 {
		t.Fatalf("models check of the world's models: exit %d\n%s%s", code, out, errOut)
	}
	flags := []string{"--out", dir, "--seed", "3", "--videos", "9", "--min-duration", "1", "--max-duration", "2"}
	if code, _, errOut := runCmd(append([]string{"world", "--check"}, flags...)...); code != 0 {
		t.Fatalf("--check on the world just written: exit %d: %s", code, errOut)
	}
	flags[3] = "4"
	if code, _, _ := runCmd(append([]string{"world", "--check"}, flags...)...); code != 1 {
		t.Fatalf("--check with another seed: exit %d, want 1", code)
	}
}

func TestWorldRejectsBadUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"no --out":         {"world"},
		"too few videos":   {"world", "--out", t.TempDir(), "--videos", "3"},
		"min above max":    {"world", "--out", t.TempDir(), "--min-duration", "9", "--max-duration", "2"},
		"a stray argument": {"world", "--out", t.TempDir(), "extra"},
	} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
	}
}
