package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProbeRealVideos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		codec     string
		w, h      int
		fps       float64
		duration  float64 // seconds, to within 0.1
		keyframes bool
	}{
		{"big_buck_bunny_0_30_h264_640.mp4", "h264", 640, 360, 24, 30, true},
		{"big_buck_bunny_432_433.webm", "vp8", 1280, 720, 24, 1, true},
		{"smpte-2997.mp4", "h264", 1920, 1080, 25, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := sharedVideo(t, tt.file)
			code, out, errOut := runCmd("probe", "--json", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got probeJSON
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("decode %q: %v", out, err)
			}
			if got.Codec != tt.codec || got.Width != tt.w || got.Height != tt.h {
				t.Errorf("got %s %dx%d, want %s %dx%d", got.Codec, got.Width, got.Height, tt.codec, tt.w, tt.h)
			}
			if d := got.FrameRate - tt.fps; d > 0.01 || d < -0.01 {
				t.Errorf("frame rate %.3f, want %.3f", got.FrameRate, tt.fps)
			}
			if d := got.Duration - tt.duration; d > 0.1 || d < -0.1 {
				t.Errorf("duration %.3f, want %.3f", got.Duration, tt.duration)
			}
			if tt.keyframes && (len(got.Keyframes) == 0 || got.Keyframes[0] > 0.1) {
				t.Errorf("keyframes %v: want a first keyframe at the start", got.Keyframes)
			}
		})
	}
}

func TestProbeBadVideosFailEachAloneWithExit2(t *testing.T) {
	t.Parallel()
	good := sharedVideo(t, "big_buck_bunny_432_433.webm")
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.mp4")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.mp4")
	code, out, errOut := runCmd("probe", missing, good, empty)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(out, good) {
		t.Errorf("the good video was not probed: stdout %q", out)
	}
	for _, p := range []string{missing, empty} {
		if !strings.Contains(errOut, p) {
			t.Errorf("stderr does not name %s: %q", p, errOut)
		}
	}
	if !strings.Contains(errOut, "2 of 3 videos") {
		t.Errorf("stderr does not count the failures: %q", errOut)
	}
}
