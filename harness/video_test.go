package harness

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveVideo(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.mp4"))
	write(filepath.Join(root, "in.mp4"))
	write(filepath.Join(root, "sub", "4010069381.webm"))
	if err := os.Symlink(filepath.Join(outside, "secret.mp4"), filepath.Join(root, "link.mp4")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "in.mp4"), filepath.Join(root, "inlink.mp4")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		video, path string
		want        string // relative to root; "" when an error is wanted
		err         error
	}{
		{"video_path relative to the root", "v", "in.mp4", "in.mp4", nil},
		{"an absolute video_path inside the root", "v", filepath.Join(root, "in.mp4"), "in.mp4", nil},
		{"the video field with the extension found", "sub/4010069381", "", "sub/4010069381.webm", nil},
		{"a symbolic link that stays inside", "v", "inlink.mp4", "inlink.mp4", nil},
		{"a video_path with ..", "v", "../secret.mp4", "", ErrOutsideRoot},
		{"an absolute video_path elsewhere", "v", filepath.Join(outside, "secret.mp4"), "", ErrOutsideRoot},
		{"an absolute path elsewhere that does not exist", "v", "/nonexistent/x.mp4", "", ErrOutsideRoot},
		{"a symbolic link that leaves the root", "v", "link.mp4", "", ErrOutsideRoot},
		{"a video field with ..", "../secret", "", "", ErrOutsideRoot},
		{"a missing file", "v", "gone.mp4", "", fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveVideo(root, &Item{Video: tt.video, VideoPath: tt.path})
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("got %q, %v; want %v", got, err, tt.err)
				}
				return
			}
			if err != nil || got != filepath.Join(root, tt.want) {
				t.Fatalf("got %q, %v; want %s", got, err, filepath.Join(root, tt.want))
			}
		})
	}
}
