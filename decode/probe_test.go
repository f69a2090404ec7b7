package decode

import (
	"context"
	"testing"
	"time"
)

func TestProbeGeneratedVideos(t *testing.T) {
	tests := []struct {
		name           string
		codec          string
		w, h, rotation int
		fps            float64
		frames         int // 0: do not check
		duration       time.Duration
		keyframes      int // 0: do not check
		keySource      string
		durSource      string // "" = do not check
	}{
		{name: "h264_gop30.mp4", codec: "h264", w: 320, h: 240, fps: 30, frames: 120, duration: 4 * time.Second, keyframes: 4, keySource: "index"},
		{name: "hevc_gop10.mp4", codec: "hevc", w: 320, h: 240, fps: 25, frames: 75, duration: 3 * time.Second, keyframes: 8, keySource: "index"},
		{name: "vp9.webm", codec: "vp9", w: 320, h: 240, fps: 24, duration: 3 * time.Second, keyframes: 3, keySource: "scan"},
		{name: "odd_size.mp4", codec: "h264", w: 321, h: 241, fps: 30, frames: 60, duration: 2 * time.Second, keyframes: 4, keySource: "index"},
		// Written to a pipe: no duration, no cues; the scan finds both.
		{name: "no_index.mkv", codec: "h264", w: 320, h: 240, fps: 30, frames: 90, duration: 3 * time.Second, keyframes: 3, keySource: "scan", durSource: "scan"},
		// ffmpeg 5.1's rotate=90 tag stores a matrix that ffmpeg itself shows
		// turned 270 degrees clockwise (TestFramesMatchFFmpeg checks the pixels).
		{name: "rotated90.mp4", codec: "h264", w: 320, h: 240, rotation: 270, fps: 30, frames: 120, duration: 4 * time.Second, keyframes: 4, keySource: "index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Probe(context.Background(), testVideoPath(t, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if in.Codec != tt.codec || in.Width != tt.w || in.Height != tt.h || in.Rotation != tt.rotation {
				t.Errorf("got %s %dx%d rotation %d, want %s %dx%d rotation %d", in.Codec, in.Width, in.Height, in.Rotation, tt.codec, tt.w, tt.h, tt.rotation)
			}
			if d := in.FrameRate - tt.fps; d > 0.01 || d < -0.01 {
				t.Errorf("frame rate %v, want %v", in.FrameRate, tt.fps)
			}
			if tt.frames > 0 && in.Frames != tt.frames {
				t.Errorf("frames %d, want %d", in.Frames, tt.frames)
			}
			if d := in.Duration - tt.duration; d > 50*time.Millisecond || d < -50*time.Millisecond {
				t.Errorf("duration %v (from %s), want %v", in.Duration, in.DurationSource, tt.duration)
			}
			if tt.keyframes > 0 && len(in.Keyframes) != tt.keyframes {
				t.Errorf("%d keyframes %v, want %d", len(in.Keyframes), in.Keyframes, tt.keyframes)
			}
			if tt.durSource != "" && in.DurationSource != tt.durSource {
				t.Errorf("duration from %q, want %q", in.DurationSource, tt.durSource)
			}
			if in.KeyframeSource != tt.keySource {
				t.Errorf("keyframes from %q, want %q", in.KeyframeSource, tt.keySource)
			}
			for i := 1; i < len(in.Keyframes); i++ {
				if in.Keyframes[i] <= in.Keyframes[i-1] {
					t.Fatalf("keyframes not increasing: %v", in.Keyframes)
				}
			}
		})
	}
}
