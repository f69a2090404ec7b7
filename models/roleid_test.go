package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoleNameChangesWithWhatChangesAnswers: a role's name, which keys its
// stored answers, changes with the bytes of a file that decides them and
// with a setting of its entry, and with nothing else.
func TestRoleNameChangesWithWhatChangesAnswers(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "clip")
	os.MkdirAll(dir, 0o755)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("vision_model.onnx", "weights")
	write("text_model.onnx", "text")
	write("notes.txt", "not read by the loader")
	name := func(spec RoleSpec) string {
		n, err := RoleName(RoleImageText, dir, spec)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := name(RoleSpec{Dir: "clip"})
	if !strings.HasPrefix(base, "onnx:image_text:clip:") || !strings.Contains(base, "vision_model.onnx=sha256:") || strings.Contains(base, "notes.txt") {
		t.Fatalf("name %q: want the role, the folder and the hashes of the files the loader reads", base)
	}
	tests := []struct {
		name   string
		change func() RoleSpec
		same   bool
	}{
		{"a file the loader does not read", func() RoleSpec { write("notes.txt", "edited"); return RoleSpec{Dir: "clip"} }, true},
		{"where the folder is named from", func() RoleSpec { return RoleSpec{Dir: "elsewhere/clip"} }, true},
		{"a served entry's client tuning", func() RoleSpec { return RoleSpec{Dir: "clip", ServerConcurrency: 8} }, true},
		{"a setting that changes scores", func() RoleSpec { return RoleSpec{Dir: "clip", LogitScale: 30} }, false},
		{"a weight file's bytes", func() RoleSpec { write("vision_model.onnx", "weightz"); return RoleSpec{Dir: "clip"} }, false},
		{"the tokenizer", func() RoleSpec { write("tokenizer.json", "{}"); return RoleSpec{Dir: "clip"} }, false},
	}
	for _, tc := range tests {
		// In order: each case changes the folder for the ones after it.
		before := name(RoleSpec{Dir: "clip"})
		got := name(tc.change())
		if (got == before) != tc.same {
			t.Errorf("%s: name %q against %q; want same=%v", tc.name, got, before, tc.same)
		}
	}
	if _, err := RoleName(RoleTextEmbed, dir, RoleSpec{}); err == nil {
		t.Error("a role without weight files named")
	}
}
