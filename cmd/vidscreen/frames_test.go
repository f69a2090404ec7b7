package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFramesWritesFramesAndContactSheet(t *testing.T) {
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	out := t.TempDir()
	code, stdout, stderr := runCmd("frames", video, "--sampler", "uniform:8", "--size", "112", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	names, err := filepath.Glob(filepath.Join(out, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	var frames int
	var sheet bool
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if strings.HasPrefix(filepath.Base(n), "contact") {
			sheet = true
			continue
		}
		frames++
		// 640x360 with the short side at 112 keeps the aspect ratio: 199x112
		// (even widths are allowed to round either way by one pixel).
		if cfg.Height != 112 || cfg.Width < 198 || cfg.Width > 200 {
			t.Errorf("%s is %dx%d, want about 199x112", n, cfg.Width, cfg.Height)
		}
	}
	if frames != 8 || !sheet {
		t.Errorf("wrote %d frames (want 8) and contact sheet %v; stdout %q", frames, sheet, stdout)
	}
}

func TestFramesBadInput(t *testing.T) {
	video := sharedVideo(t, "big_buck_bunny_432_433.webm")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a missing video", []string{filepath.Join(t.TempDir(), "nope.mp4"), "--out", t.TempDir()}, "nope.mp4"},
		{"an unknown sampler", []string{video, "--sampler", "sideways:3", "--out", t.TempDir()}, "sideways"},
		{"no --out", []string{video}, "--out"},
		{"a clip whose end is before its start", []string{video, "--clip", "5-2", "--out", t.TempDir()}, "--clip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"frames"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not name %q", stderr, tt.want)
			}
		})
	}
}
