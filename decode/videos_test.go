package decode

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Test videos are made by the ffmpeg command from its testsrc2 pattern
// (a moving picture with a frame counter, so neighbouring frames differ)
// and kept in the repository's ignored .cache, so later runs reuse them.

// testVideo describes one generated clip: the ffmpeg arguments that make it
// from the lavfi input, and an optional step that damages it afterwards.
type testVideo struct {
	name string
	args []string // output options; the input is testsrc2 unless input is set
	size string   // testsrc2 size
	rate string
	secs string
	// input, if set, replaces testsrc2 (e.g. an audio source).
	input []string
	// from, if set, makes the file from another test video instead.
	from string
	// after rewrites the finished file's bytes.
	after func([]byte) []byte
	// stdout writes the container to a pipe (no seek back to fill in
	// durations and indexes).
	stdout bool
}

var testVideos = []testVideo{
	{name: "h264_gop30.mp4", size: "320x240", rate: "30", secs: "4", args: []string{"-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "2", "-pix_fmt", "yuv420p"}},
	{name: "h264_faststart.mp4", size: "320x240", rate: "30", secs: "4", args: []string{"-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-bf", "2", "-pix_fmt", "yuv420p", "-movflags", "+faststart"}},
	{name: "hevc_gop10.mp4", size: "320x240", rate: "25", secs: "3", args: []string{"-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "keyint=10:min-keyint=10:log-level=error", "-pix_fmt", "yuv420p", "-tag:v", "hvc1"}},
	{name: "vp9.webm", size: "320x240", rate: "24", secs: "3", args: []string{"-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "24", "-b:v", "400k"}},
	// Tagged BT.709, whose colours differ from swscale's BT.601 default:
	// a scaler that lost the colour space would change its pixels.
	{name: "h264_bt709.mp4", size: "320x240", rate: "25", secs: "3", args: []string{"-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-bf", "2", "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"}},
	{name: "odd_size.mp4", size: "321x241", rate: "30", secs: "2", args: []string{"-c:v", "libx264", "-preset", "veryfast", "-vf", "scale=321:241", "-g", "15", "-pix_fmt", "yuv444p"}},
	// Variable frame rate: 90 fps thinned to frames 0,2,5,7,10,... (gaps of
	// 22 and 33 ms), with frames 90-112 dropped (a 0.27 s gap).
	{name: "vfr.mkv", size: "320x240", rate: "90", secs: "3", args: []string{"-vf", "select='(not(mod(n,5))+eq(mod(n,5),2))*not(between(n,90,112))'", "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "veryfast", "-g", "20", "-bf", "0", "-pix_fmt", "yuv420p"}},
	{name: "no_index.mkv", size: "320x240", rate: "30", secs: "3", stdout: true, args: []string{"-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p", "-f", "matroska"}},
	// Streams without a seek index: MPEG-TS (H.264 with B-frames, and
	// MPEG-2) and a raw H.264 elementary stream.
	{name: "h264_gop30.ts", from: "h264_gop30.mp4", args: []string{"-c", "copy", "-f", "mpegts"}},
	{name: "mpeg2.ts", size: "320x240", rate: "25", secs: "4", args: []string{"-c:v", "mpeg2video", "-g", "12", "-bf", "2", "-q:v", "4", "-f", "mpegts"}},
	{name: "raw.h264", from: "h264_gop30.mp4", args: []string{"-c", "copy", "-bsf:v", "h264_mp4toannexb", "-f", "h264"}},
	{name: "rotated90.mp4", from: "h264_gop30.mp4", args: []string{"-c", "copy", "-metadata:s:v:0", "rotate=90"}},
	{name: "audio_only.m4a", input: []string{"-f", "lavfi", "-i", "sine=frequency=440:duration=2"}, args: []string{"-c:a", "aac"}},
	{name: "unknown_codec.mkv", from: "h264_gop30.mp4", args: []string{"-c", "copy", "-f", "matroska"}, after: func(b []byte) []byte {
		// Rename the Matroska codec ID to one no decoder claims (same length).
		return bytes.Replace(b, []byte("V_MPEG4/ISO/AVC"), []byte("V_MPEG4/ISO/XYZ"), 1)
	}},
	{name: "truncated_moov_at_end.mp4", from: "h264_gop30.mp4", args: []string{"-c", "copy"}, after: func(b []byte) []byte { return b[:len(b)*2/3] }},
	{name: "truncated_faststart.mp4", from: "h264_faststart.mp4", args: []string{"-c", "copy", "-movflags", "+faststart"}, after: func(b []byte) []byte { return b[:len(b)/2] }},
	{name: "flipped_header.mp4", from: "h264_faststart.mp4", args: []string{"-c", "copy", "-movflags", "+faststart"}, after: func(b []byte) []byte {
		for i := 0; i < 64 && i < len(b); i++ {
			b[i] ^= 0xA5
		}
		return b
	}},
	{name: "flipped_payload.mp4", from: "h264_faststart.mp4", args: []string{"-c", "copy", "-movflags", "+faststart"}, after: func(b []byte) []byte {
		// Flip every 97th byte of the second half: damaged slices the decoder
		// must conceal or reject without crashing.
		for i := len(b) / 2; i < len(b); i += 97 {
			b[i] ^= 0xFF
		}
		return b
	}},
}

var (
	testVideoMu  sync.Mutex
	testVideoDir string
)

// testVideoPath returns the path of the named test video, making it first
// if needed. It skips the test when the ffmpeg command is missing.
func testVideoPath(t testing.TB, name string) string {
	t.Helper()
	testVideoMu.Lock()
	defer testVideoMu.Unlock()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("the ffmpeg command is not installed (make setup installs it)")
	}
	if testVideoDir == "" {
		root, err := filepath.Abs("..")
		if err != nil {
			t.Fatal(err)
		}
		testVideoDir = filepath.Join(root, ".cache", "decode-testvideos")
		if err := os.MkdirAll(testVideoDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return makeTestVideo(t, name)
}

func makeTestVideo(t testing.TB, name string) string {
	t.Helper()
	out := filepath.Join(testVideoDir, name)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	var v *testVideo
	for i := range testVideos {
		if testVideos[i].name == name {
			v = &testVideos[i]
		}
	}
	if v == nil {
		t.Fatalf("no test video %q", name)
	}
	args := []string{"-v", "error", "-y"}
	switch {
	case v.from != "":
		args = append(args, "-i", makeTestVideo(t, v.from))
	case v.input != nil:
		args = append(args, v.input...)
	default:
		args = append(args, "-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=%s:rate=%s:duration=%s", v.size, v.rate, v.secs))
	}
	args = append(args, v.args...)
	tmp := out + ".tmp" + filepath.Ext(name)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("ffmpeg", args...)
	cmd.Stderr = &stderr
	if v.stdout {
		cmd.Args = append(cmd.Args, "pipe:1")
		cmd.Stdout = &stdout
	} else {
		cmd.Args = append(cmd.Args, tmp)
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("make %s: %v: %v\n%s", name, cmd.Args, err, stderr.Bytes())
	}
	data := stdout.Bytes()
	if !v.stdout {
		var err error
		if data, err = os.ReadFile(tmp); err != nil {
			t.Fatal(err)
		}
	}
	if v.after != nil {
		data = v.after(data)
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// remux copies the streams of src into dir/name with the ffmpeg command
// (-c copy plus args), e.g. to put a real MP4's H.264 into MPEG-TS.
func remux(t testing.TB, src, dir, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("the ffmpeg command is not installed (make setup installs it)")
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-y", "-i", src, "-c", "copy"}, args...), out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, b)
	}
	return out
}
