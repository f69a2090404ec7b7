package decode

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// realVideoDir is ../shared/data/videos seen from the repository root.
func realVideoDir(t testing.TB) string {
	t.Helper()
	return shareddata.Path(t, "videos")
}

// ffmpegFrame returns the frame the ffmpeg command gives for -ss t (the
// first frame at or after t) as w x h RGB24, or nil past the end. It puts
// -ss after -i, so ffmpeg decodes from the start and drops frames before t:
// with -ss before -i it seeks to the keyframe before t first, and on HEVC
// with open GOPs (x265's default) that keyframe is a CRA whose leading
// frames ffmpeg then cannot decode, so it returns the CRA instead of the
// frame shown at t (seen with hevc_gop10.mp4 at 0.36 s).
func ffmpegFrame(t testing.TB, path string, ts time.Duration, w, h int) []byte {
	return ffmpegFrameSeek(t, path, ts, w, h, false)
}

// ffmpegFrameSeek is ffmpegFrame with -ss before -i when inputSeek is set.
func ffmpegFrameSeek(t testing.TB, path string, ts time.Duration, w, h int, inputSeek bool) []byte {
	t.Helper()
	// Round down with 0.1 ms to spare, so a frame at ts is not skipped: our
	// times count from the container's start in the stream's ticks, ffmpeg's
	// from its start time in microseconds (MPEG-TS: 11 us apart).
	us := max(int64((ts-100*time.Microsecond)/time.Microsecond), 0)
	ss := fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
	args := []string{"-v", "error", "-i", path, "-ss", ss}
	if inputSeek {
		args = []string{"-v", "error", "-ss", ss, "-i", path}
	}
	args = append(args, "-frames:v", "1", "-vf", fmt.Sprintf("scale=%d:%d:flags=area", w, h), "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1")
	cmd := exec.Command("ffmpeg", args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ffmpeg -ss %s -i %s: %v\n%s", ss, path, err, stderr.Bytes())
	}
	if out.Len() == 0 {
		return nil
	}
	if out.Len() != 3*w*h {
		t.Fatalf("ffmpeg -ss %s -i %s gave %d bytes, want %d", ss, path, out.Len(), 3*w*h)
	}
	return out.Bytes()
}

// ffmpegFrameNumber returns frame n (0-based, in display order) as the
// ffmpeg command decodes it, as w x h RGB24.
func ffmpegFrameNumber(t testing.TB, path string, n, w, h int) []byte {
	t.Helper()
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", path, "-vf", fmt.Sprintf("select=eq(n\\,%d),scale=%d:%d:flags=area", n, w, h),
		"-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || out.Len() != 3*w*h {
		t.Fatalf("%v: %v (%d bytes)\n%s", cmd.Args, err, out.Len(), stderr.Bytes())
	}
	return out.Bytes()
}

func meanAbsDiff(a, b []byte) float64 {
	var s int64
	for i := range a {
		d := int64(a[i]) - int64(b[i])
		if d < 0 {
			d = -d
		}
		s += d
	}
	return float64(s) / float64(len(a))
}

// framePTS lists the presentation times of every video frame as ffprobe
// reports them, from the start of the file, ascending.
func framePTS(t testing.TB, path string) []time.Duration {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
		"frame=best_effort_timestamp_time:format=start_time", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	lines := strings.Fields(string(out))
	start, err := strconv.ParseFloat(lines[len(lines)-1], 64)
	if err != nil {
		t.Fatalf("ffprobe %s: start time %q", path, lines[len(lines)-1])
	}
	var pts []time.Duration
	for _, l := range lines[:len(lines)-1] {
		v, err := strconv.ParseFloat(strings.TrimSuffix(l, ","), 64)
		if err != nil {
			continue
		}
		pts = append(pts, time.Duration(math.Round((v-start)*1e6))*time.Microsecond)
	}
	return pts
}

// TestFramesMatchFFmpeg checks which frame a time returns (the last frame
// shown at or before it, by ffprobe's frame times) and that its pixels are
// the ones `ffmpeg -ss PTS -i F -frames:v 1` gives, while the frame after
// it differs.
func TestFramesMatchFFmpeg(t *testing.T) {
	type video struct {
		path  string
		times []time.Duration
	}
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	videos := []video{
		{testVideoPath(t, "h264_gop30.mp4"), ms(3990, 0, 17, 1000, 1016, 1017, 2550, 999, 3000)},
		{testVideoPath(t, "hevc_gop10.mp4"), ms(0, 390, 410, 1234, 2999, 1500)},
		{testVideoPath(t, "vp9.webm"), ms(0, 1041, 1042, 2000, 2990)},
		{testVideoPath(t, "odd_size.mp4"), ms(0, 500, 1500)},
		// Gaps alternate 22 and 33 ms (Matroska gives every frame one
		// default duration), with no frame from 1.0 to 1.26 s; 1.134 s is
		// 1 ms after a frame that follows the one before by 22 ms.
		{testVideoPath(t, "vfr.mkv"), ms(0, 500, 990, 1000, 1134, 1300, 2000, 2500, 2990)},
		{testVideoPath(t, "no_index.mkv"), ms(100, 1500, 2950)},
		{testVideoPath(t, "rotated90.mp4"), ms(700, 2300)},
	}
	if !testing.Short() {
		dir := realVideoDir(t)
		videos = append(videos,
			video{filepath.Join(dir, "smpte-2997.mp4"), ms(0, 4000, 9950)},
			video{filepath.Join(dir, "big_buck_bunny_0_30.webm"), ms(2000, 15500, 29900)},
			video{filepath.Join(dir, "big_buck_bunny_0_30_h264_640.mp4"), ms(10, 12345, 25000)},
			video{filepath.Join(dir, "big_buck_bunny_432_433.webm"), ms(0, 500)},
		)
	}
	for _, v := range videos {
		t.Run(filepath.Base(v.path), func(t *testing.T) { checkFramesMatchFFmpeg(t, v.path, v.times) })
	}
}

// checkFramesMatchFFmpeg decodes the frames of path at times and checks
// each against ffprobe's frame times and ffmpeg's pixels.
func checkFramesMatchFFmpeg(t *testing.T, path string, times []time.Duration) {
	t.Helper()
	ctx := context.Background()
	d, err := Open(ctx, path, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	frames, err := d.Frames(ctx, times, Size{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := framePTS(t, path)
	for i, f := range frames {
		want, n := all[0], 0
		for k, p := range all {
			if p <= times[i] {
				want, n = p, k
			}
		}
		if diff := f.PTS - want; diff > time.Millisecond || diff < -time.Millisecond {
			t.Errorf("time %v: got the frame at %v, want the one at %v", times[i], f.PTS, want)
			continue
		}
		if !d.src.seekable {
			// ffmpeg's -ss counts MPEG-TS time from the video's first
			// frame, ffprobe (and we) from the file's start time, which
			// the audio may set earlier: pick ffprobe's frame by number.
			if got := meanAbsDiff(f.RGB, ffmpegFrameNumber(t, path, n, f.Width, f.Height)); got > 2 {
				t.Errorf("time %v (frame %d at %v): mean abs difference %.2f from ffmpeg's frame %d", times[i], f.Index, f.PTS, got, n)
			}
			continue
		}
		ref := ffmpegFrame(t, path, f.PTS, f.Width, f.Height)
		got := meanAbsDiff(f.RGB, ref)
		if got > 2 {
			t.Errorf("time %v (frame at %v): mean abs difference %.2f from ffmpeg's frame", times[i], f.PTS, got)
		}
		// The command as users type it: -ss before -i, seeking first.
		// It agrees except on the leading frames of open GOPs.
		if in := ffmpegFrameSeek(t, path, f.PTS, f.Width, f.Height, true); in != nil {
			if d := meanAbsDiff(f.RGB, in); d > 2 && d > got {
				if !strings.HasPrefix(filepath.Base(path), "hevc") {
					t.Errorf("time %v (frame at %v): mean abs difference %.2f from `ffmpeg -ss PTS -i F`", times[i], f.PTS, d)
				} else {
					t.Logf("time %v (frame at %v): `ffmpeg -ss PTS -i F` differs by %.2f (it seeks to the CRA after this open-GOP leading frame)", times[i], f.PTS, d)
				}
			}
		}
		if next := ffmpegFrame(t, path, f.PTS+time.Millisecond, f.Width, f.Height); next != nil && meanAbsDiff(ref, next) > 1 {
			if nd := meanAbsDiff(f.RGB, next); nd <= got {
				t.Errorf("time %v: the next frame is as close to ours (%.2f) as the expected one (%.2f): the check cannot tell frames apart", times[i], nd, got)
			}
		}
	}
}

// TestFramesDecodeEachGOPOnce checks the decoder's economy on a file with
// one-second GOPs: sparse targets skip whole GOPs, dense ones never decode
// a GOP twice, and seeks happen only between GOPs.
func TestFramesDecodeEachGOPOnce(t *testing.T) {
	path := testVideoPath(t, "h264_gop30.mp4") // 120 frames, keyframes every 30
	tests := []struct {
		name      string
		times     []time.Duration
		maxFrames int // frames decoded at most (with the decoder's lookahead)
		maxSeeks  int
	}{
		{"one frame early in each GOP", []time.Duration{50 * time.Millisecond, 1050 * time.Millisecond, 2050 * time.Millisecond, 3050 * time.Millisecond}, 4 * 5, 4},
		{"uniform:32 over 4 GOPs decodes at most every frame once", nil, 120, 4},
		{"targets out of order are visited in order", []time.Duration{3050 * time.Millisecond, 50 * time.Millisecond}, 2 * 5, 2},
		// x264 with 2 B-frames: one frame in three is unreferenced, and
		// those that no target falls in are skipped.
		{"the last frame of each GOP needs the GOP but not its unreferenced frames", []time.Duration{990 * time.Millisecond, 1990 * time.Millisecond, 2990 * time.Millisecond, 3990 * time.Millisecond}, 4 * 24, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(context.Background(), path, Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			times := tt.times
			if times == nil {
				if times, err = Sample(d.Info(), Clip{}, "uniform:32", 1); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := d.Frames(context.Background(), times, Size{Short: 64}, nil); err != nil {
				t.Fatal(err)
			}
			s := d.Stats()
			if s.FramesDecoded > tt.maxFrames || s.Seeks > tt.maxSeeks || s.Backoffs != 0 {
				t.Errorf("decoded %d frames with %d seeks (%d back-offs), want at most %d frames and %d seeks, none", s.FramesDecoded, s.Seeks, s.Backoffs, tt.maxFrames, tt.maxSeeks)
			}
			if s.PacketsSkippable == 0 {
				t.Error("no packet was marked skippable on a constant-rate file with B-frames")
			}
			if s.PacketsDropped == 0 || s.PacketsDropped > s.PacketsSkippable {
				t.Errorf("%d of %d skippable packets dropped before the decoder, want some and no more", s.PacketsDropped, s.PacketsSkippable)
			}
			if s.FramesOut != len(times) {
				t.Errorf("returned %d frames, want %d", s.FramesOut, len(times))
			}
		})
	}
}

// TestResizedFramesMatchFFmpeg checks the resize path: frames at short side
// 112 against ffmpeg's scale filter with the same swscale algorithm.
func TestResizedFramesMatchFFmpeg(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"h264_gop30.mp4", "rotated90.mp4", "odd_size.mp4"} {
		path := testVideoPath(t, name)
		d, err := Open(ctx, path, Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		frames, err := d.Frames(ctx, []time.Duration{500 * time.Millisecond, 1700 * time.Millisecond}, Size{Short: 112}, nil)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames {
			if min(f.Width, f.Height) != 112 {
				t.Errorf("%s: frame is %dx%d, want short side 112", name, f.Width, f.Height)
			}
			// ffmpeg turns the picture before resizing it and this package
			// after, which places 4:2:0 chroma differently (about 3 levels);
			// a wrong turn or frame differs by tens.
			limit := 2.0
			if strings.HasPrefix(name, "rotated") {
				limit = 4
			}
			if diff := meanAbsDiff(f.RGB, ffmpegFrame(t, path, f.PTS, f.Width, f.Height)); diff > limit {
				t.Errorf("%s at %v: mean abs difference %.2f from ffmpeg's resized frame", name, f.PTS, diff)
			}
		}
	}
}

// TestNoSkippingOnVariableFrameRate checks that frames are never skipped
// where a packet's duration does not say when the next frame starts.
func TestNoSkippingOnVariableFrameRate(t *testing.T) {
	d, err := Open(context.Background(), testVideoPath(t, "vfr.mkv"), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.src.cfr {
		t.Fatal("vfr.mkv measured as constant frame rate")
	}
	if _, err := d.Frames(context.Background(), []time.Duration{time.Second, 2 * time.Second}, Size{Short: 32}, nil); err != nil {
		t.Fatal(err)
	}
	if s := d.Stats(); s.PacketsSkippable != 0 {
		t.Errorf("%d packets marked skippable", s.PacketsSkippable)
	}
}
