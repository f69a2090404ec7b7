package main

import (
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

func TestFramesWritesFramesAndContactSheet(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
		// fps:1e7 built ten million times and died of a Go fatal
		// out-of-memory; native frames past --max-memory likewise.
		{"a rate that picks millions of frames", []string{video, "--sampler", "fps:1e7", "--out", t.TempDir()}, "sampler fps:1e+07 picks"},
		{"frames past --max-memory", []string{video, "--sampler", "uniform:64", "--size", "native", "--max-memory", "0.01", "--out", t.TempDir()}, "over --max-memory 0.01 GiB"},
		{"a non-positive --max-memory", []string{video, "--max-memory", "0", "--out", t.TempDir()}, "--max-memory"},
		{"a clip after the video", []string{video, "--clip", "100-101", "--out", t.TempDir()}, "at or after the video's end"},
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

// TestFramesFormatsAndStaleFiles runs frames into one folder several times:
// each run leaves exactly its own files, the contact sheet's tiles carry
// their times, and --format npy writes one (N, H, W, 3) uint8 array.
func TestFramesFormatsAndStaleFiles(t *testing.T) {
	t.Parallel()
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	out := t.TempDir()
	frames := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCmd(append([]string{"frames", video, "--size", "112", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	list := func() string {
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	frames("--sampler", "uniform:6")
	f, err := os.Open(filepath.Join(out, "contact.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The first tile starts at (4, 4); its label's box is black and the
	// first glyph (a digit: its top row is lit at the left) starts one
	// pixel in.
	if r, _, _, _ := img.At(4, 4).RGBA(); r != 0 {
		t.Errorf("the label box's corner is %d, want black", r>>8)
	}
	if r, g, b, _ := img.At(5, 5).RGBA(); r>>8 != 255 || g>>8 != 255 || b>>8 != 255 {
		t.Errorf("the label's first pixel is %d,%d,%d, want white", r>>8, g>>8, b>>8)
	}
	stdout := frames("--sampler", "uniform:4")
	if got := list(); got != "contact.png frame_000.png frame_001.png frame_002.png frame_003.png" {
		t.Errorf("after 6 then 4 frames the folder holds %s", got)
	}
	if !strings.Contains(stdout, "removed 2 frames of an earlier run: frame_004.png frame_005.png") {
		t.Errorf("stdout does not name the removed frames:\n%s", stdout)
	}
	frames("--sampler", "uniform:3", "--format", "npy")
	if got := list(); got != "frames.npy" {
		t.Errorf("after --format npy the folder holds %s", got)
	}
	nf, err := os.Open(filepath.Join(out, "frames.npy"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := npy.ReadHeader(nf)
	st, _ := nf.Stat()
	nf.Close()
	if err != nil || h.Descr != npy.Uint8 || len(h.Shape) != 4 || h.Shape[0] != 3 || h.Shape[1] != 112 || h.Shape[3] != 3 {
		t.Fatalf("frames.npy header %+v, %v", h, err)
	}
	if want := int64(3 * 112 * h.Shape[2] * 3); st.Size() < want || st.Size() > want+256 {
		t.Errorf("frames.npy is %d bytes for %d values", st.Size(), want)
	}
	frames("--sampler", "uniform:2")
	if got := list(); got != "contact.png frame_000.png frame_001.png" {
		t.Errorf("after PNGs again the folder holds %s", got)
	}
	if code, _, stderr := runCmd("frames", video, "--out", out, "--format", "gif"); code != 2 || !strings.Contains(stderr, `--format "gif"`) {
		t.Errorf("--format gif: exit %d, %s", code, stderr)
	}
}

// BenchmarkFramePNGs measures writing real decoded frames as frames does
// (32 frames at 224 and their labelled contact sheet): the part of the
// command that is not decoding.
func BenchmarkFramePNGs(b *testing.B) {
	video := shareddata.Path(b, "videos", "big_buck_bunny_0_30_h264_640.mp4")
	sampler, _ := decode.ParseSampler("uniform:32")
	size, _ := decode.ParseSize("224")
	var res *decode.Result
	pool := &decode.Pool{Workers: 1}
	err := pool.Run(context.Background(), []decode.Job{{Path: video, Sampler: sampler, Size: size}}, func(r *decode.Result) error {
		res = r
		return r.Err
	})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for b.Loop() {
		if err := writeFramePNGs(context.Background(), dir, res.Frames, res.Times); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(res.Frames))/b.Elapsed().Seconds(), "frames/s")
}

// TestFramePNGsStopOnCancel: a cancelled context (Ctrl-C, SIGTERM) stops
// writing before the next frame; it used to write every frame first.
func TestFramePNGsStopOnCancel(t *testing.T) {
	frames := make([]decode.Frame, 200)
	asked := make([]time.Duration, len(frames))
	for i := range frames {
		frames[i] = decode.Frame{Width: 64, Height: 48, RGB: make([]byte, 64*48*3)}
		asked[i] = time.Duration(i) * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	err := writeFramePNGs(ctx, dir, frames, asked)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "frame_*.png")); len(names) > 0 {
		t.Errorf("a cancelled run wrote %d frames", len(names))
	}
}
