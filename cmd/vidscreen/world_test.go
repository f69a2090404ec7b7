package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/world/truth"
)

func TestWorldWritesAWorld(t *testing.T) {
	t.Parallel()
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
	if !strings.Contains(out, "option-artifact") || !strings.Contains(out, "13 videos") {
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
	t.Parallel()
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

// world's table of families fits the width it is printed at: a planted
// shortcut's description is cut, and the table says where it is whole.
func TestWriteFamiliesFitsTheWidth(t *testing.T) {
	t.Parallel()
	fams := []truth.FamilyTruth{
		{Name: "option-artifact", Videos: 3, Items: 12, Shortcut: "the correct option is the only long, specific one; the others are two-word stock phrases"},
		{Name: "clean", Videos: 3, Items: 6, Shortcut: "none"},
	}
	for _, width := range []int{60, 100, 300} {
		var b strings.Builder
		if err := writeFamilies(&b, fams, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if n := len([]rune(l)); n >= width {
				t.Errorf("width %d: line of %d columns: %q", width, n, l)
			}
		}
		cut := strings.Contains(out, "…")
		if cut != (width < 120) || cut != strings.Contains(out, "in full: truth.json") {
			t.Errorf("width %d: cut %v, note %v:\n%s", width, cut, strings.Contains(out, "in full"), out)
		}
		if !strings.Contains(out, "clean") || !strings.Contains(out, "none\n") {
			t.Errorf("width %d: the short rows are not whole:\n%s", width, out)
		}
	}
}
