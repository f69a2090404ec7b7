package decode

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for FFmpeg's threads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestFFmpegLogNamesTheVideo: FFmpeg's own lines ("[h264 @ 0x...] error
// while decoding MB ...") reached stderr naming no file; each now names
// the video whose decoder wrote it, with its level, frame threads included.
func TestFFmpegLogNamesTheVideo(t *testing.T) {
	var buf syncBuffer
	prev := setLogOutput(&buf)
	defer setLogOutput(prev)
	if err := SetLogLevel("error"); err != nil {
		t.Fatal(err)
	}
	defer SetLogLevel("fatal")
	path := testVideoPath(t, "flipped_payload.mp4")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	decodeAll(ctx, path, Options{Threads: 4, Timeout: 30 * time.Second})
	SetLogLevel("fatal")
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if out == "" || !strings.Contains(out, "ffmpeg: "+path+": error: ") {
		t.Fatalf("no FFmpeg error line names %s:\n%s", path, out)
	}
	shape := regexp.MustCompile(`^ffmpeg: \S+: (panic|fatal|error): .`)
	for _, l := range lines {
		if !shape.MatchString(l) || strings.HasPrefix(l, "ffmpeg: -: ") {
			t.Errorf("line %q does not name a video and its level", l)
		}
	}
	t.Logf("%d lines, the first %q", len(lines), lines[0])
}

// TestFFmpegLogNamesEachOfTwoVideos: with two videos open at once, the
// decoders' lines name the video of their own context.
func TestFFmpegLogNamesEachOfTwoVideos(t *testing.T) {
	src := testVideoPath(t, "flipped_payload.mp4")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.mp4")
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var buf syncBuffer
	prev := setLogOutput(&buf)
	defer setLogOutput(prev)
	if err := SetLogLevel("error"); err != nil {
		t.Fatal(err)
	}
	defer SetLogLevel("fatal")
	ctx := context.Background()
	var ds []*Decoder
	for _, p := range []string{src, other} {
		d, err := Open(ctx, p, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		ds = append(ds, d)
	}
	times := []time.Duration{0, 500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second}
	for _, d := range ds {
		d.Frames(ctx, times, Size{Short: 32}, nil)
	}
	SetLogLevel("fatal")
	named := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if !strings.Contains(l, "[h264 @") {
			continue
		}
		switch {
		case strings.HasPrefix(l, "ffmpeg: "+src+": "):
			named[src]++
		case strings.HasPrefix(l, "ffmpeg: "+other+": "):
			named[other]++
		default:
			t.Errorf("decoder line %q names neither video", l)
		}
	}
	if named[src] == 0 || named[other] == 0 {
		t.Errorf("decoder lines per video %v, want some for each", named)
	}
}
