package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels/npy"
	"github.com/vidscreen/vidscreen/models"
)

// TestModelsEmbed writes a text_embed .npy through the command (one row
// per line, unit rows) and refuses bad command lines and empty lines with
// status 2, naming the file and line.
func TestModelsEmbed(t *testing.T) {
	needORT(t)
	dir := writeTinyModels(t, models.RoleTextEmbed)
	texts := filepath.Join(t.TempDir(), "texts.txt")
	if err := os.WriteFile(texts, []byte("a man\nwhat is the dog doing?\nred\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rows.npy")
	code, stdout, stderr := runModels("", "embed", "--role", "text_embed", "--texts", texts, "--out", out, dir)
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	m, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 3 || !strings.Contains(stdout, "3 rows") {
		t.Fatalf("%d rows, output %q; want 3", m.Rows, stdout)
	}
	for i := range m.Rows {
		var n float64
		for _, v := range m.Row(i) {
			n += float64(v) * float64(v)
		}
		if n < 0.999 || n > 1.001 {
			t.Errorf("row %d has squared norm %g; want a unit row", i, n)
		}
	}

	empty := filepath.Join(t.TempDir(), "empty.txt")
	os.WriteFile(empty, []byte("a\n\nb\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"embed", "--role", "text_embed", "--out", out, dir}, "give one of --texts FILE and --images LIST"},
		{[]string{"embed", "--texts", texts, "--out", out, dir}, "--role is required"},
		{[]string{"embed", "--role", "text_embed", "--texts", empty, "--out", out, dir}, empty + ":2: empty line"},
		{[]string{"embed", "--role", "text_embed", "--images", texts, "--out", out, dir}, "only image_text takes images"},
	} {
		code, _, stderr := runModels("", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: status %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
