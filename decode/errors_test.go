package decode

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// decodeAll opens path and asks for uniform:8 frames; it returns the first
// error on the way.
func decodeAll(ctx context.Context, path string, opt Options) ([]Frame, error) {
	d, err := Open(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	times, err := Sample(d.Info(), Clip{}, "uniform:8", 0)
	if err != nil {
		return nil, err
	}
	return d.Frames(ctx, times, Size{Short: 32}, nil)
}

func TestBadVideosFailWithTheirKind(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.mp4")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.mp4")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a video at all ", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.mp4")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		kind Kind
		msg  string // in the error text
	}{
		{"a named pipe, whose reads could block forever", fifo, KindMissing, "not a regular file"},
		{"a missing file", filepath.Join(dir, "nope.mp4"), KindMissing, "no such file"},
		{"a directory", dir, KindMissing, "directory"},
		{"a file of zero bytes", empty, KindEmpty, "zero bytes"},
		{"text named .mp4", garbage, KindCorrupt, "Invalid data"},
		{"an MP4 cut before its index (moov at the end)", testVideoPath(t, "truncated_moov_at_end.mp4"), KindTruncated, "moov"},
		{"an MP4 cut in its media data (moov first)", testVideoPath(t, "truncated_faststart.mp4"), KindTruncated, "declares"},
		{"an MP4 with its header bytes flipped", testVideoPath(t, "flipped_header.mp4"), KindCorrupt, "open"},
		{"an audio-only file", testVideoPath(t, "audio_only.m4a"), KindNoVideoStream, "streams is video"},
		{"a codec no decoder claims", testVideoPath(t, "unknown_codec.mkv"), KindUnsupportedCodec, "no decoder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeAll(context.Background(), tt.path, Options{Threads: 1})
			if err == nil {
				t.Fatal("decoded without error")
			}
			var ve *VideoError
			if !errors.As(err, &ve) {
				t.Fatalf("error %v (%T) is not a *VideoError", err, err)
			}
			if ve.Kind != tt.kind || ve.Path != tt.path {
				t.Errorf("got kind %q for %s, want %q for %s (error: %v)", ve.Kind, ve.Path, tt.kind, tt.path, err)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("error %q does not name the file and say %q", err, tt.msg)
			}
		})
	}
}

// Flipped bytes in the media data make damaged slices; FFmpeg conceals
// them, as the ffmpeg command does. The decoder must return frames or a
// corrupt-video error, never crash or hang.
func TestDamagedPayloadDecodesOrFailsCleanly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	frames, err := decodeAll(ctx, testVideoPath(t, "flipped_payload.mp4"), Options{Threads: 2, Timeout: 30 * time.Second})
	if err != nil {
		if k := KindOf(err); k != KindCorrupt && k != KindTruncated {
			t.Fatalf("got %v (kind %q), want frames or a corrupt/truncated error", err, k)
		}
		return
	}
	if len(frames) != 8 {
		t.Fatalf("got %d frames, want 8", len(frames))
	}
}

func TestDeadlineEndsAVideoWithTimeout(t *testing.T) {
	path := testVideoPath(t, "h264_gop30.mp4")
	d, err := Open(context.Background(), path, Options{Threads: 1, Timeout: time.Nanosecond})
	if err == nil {
		defer d.Close()
		_, err = d.Frames(context.Background(), []time.Duration{time.Second}, Size{}, nil)
	}
	if KindOf(err) != KindTimeout {
		t.Fatalf("got %v, want a timeout", err)
	}
}

func TestCancelledContextIsNotAVideoError(t *testing.T) {
	path := testVideoPath(t, "h264_gop30.mp4")
	d, err := Open(context.Background(), path, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = d.Frames(ctx, []time.Duration{3 * time.Second}, Size{}, nil)
	if !errors.Is(err, context.Canceled) || KindOf(err) != "" {
		t.Fatalf("got %v (kind %q), want context.Canceled and no video kind", err, KindOf(err))
	}
	// The decoder is still usable after a cancelled call.
	if _, err := d.Frames(context.Background(), []time.Duration{3 * time.Second}, Size{}, nil); err != nil {
		t.Fatalf("after a cancelled call: %v", err)
	}
}

func TestDeclaresMoreThanHeld(t *testing.T) {
	tests := []struct {
		name string
		path string
		want bool
	}{
		{"a whole MP4", testVideoPath(t, "h264_gop30.mp4"), false},
		{"a whole WebM", testVideoPath(t, "vp9.webm"), false},
		{"a Matroska file of unknown size (written to a pipe)", testVideoPath(t, "no_index.mkv"), false},
		{"an MP4 cut short", testVideoPath(t, "truncated_faststart.mp4"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := declaresMoreThanHeld(tt.path)
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	// A WebM cut in half.
	b, err := os.ReadFile(testVideoPath(t, "vp9.webm"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.webm")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := declaresMoreThanHeld(cut); !got {
		t.Error("a WebM cut in half: not reported as truncated")
	}
}
