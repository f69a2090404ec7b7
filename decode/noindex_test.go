package decode

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestFramesWithoutIndexMatchFFmpeg: streams with no seek index (MPEG-TS,
// raw H.264, Matroska without cues) return the frame shown at or before
// each time, as MP4 does. On a TS remux of Big Buck Bunny every time used to
// give frame 250, and raw H.264 sought to -9223372036 s.
func TestFramesWithoutIndexMatchFFmpeg(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	videos := []struct {
		path  string
		times []time.Duration
	}{
		{testVideoPath(t, "h264_gop30.ts"), ms(0, 1000, 1017, 2550, 3990, 500)},
		{testVideoPath(t, "mpeg2.ts"), ms(0, 333, 1000, 2040, 3960)},
		{testVideoPath(t, "no_index.mkv"), ms(0, 1000, 2000, 2950)},
	}
	if !testing.Short() {
		mp4 := filepath.Join(realVideoDir(t), "big_buck_bunny_0_30_h264_640.mp4")
		dir := t.TempDir()
		videos = append(videos,
			struct {
				path  string
				times []time.Duration
			}{remux(t, mp4, dir, "bbb.ts"), ms(1000, 5000, 10000, 25000)},
			struct {
				path  string
				times []time.Duration
			}{remux(t, mp4, dir, "bbb_nocues.mkv", "-cues_to_front", "0", "-reserve_index_space", "0", "-write_crc32", "0", "-f", "matroska", "-live", "1"), ms(1000, 12345, 25000)},
		)
	}
	for _, v := range videos {
		t.Run(filepath.Base(v.path), func(t *testing.T) { checkFramesMatchFFmpeg(t, v.path, v.times) })
	}
	// A raw H.264 stream has no timestamps for ffprobe to list: frame i is
	// shown at i/rate, so each time gives the frame of the MP4 it was
	// copied from.
	t.Run("raw.h264", func(t *testing.T) {
		ctx := context.Background()
		times := ms(3900, 0, 1000, 1017, 2550, 500)
		var got [2][]Frame
		for i, name := range []string{"raw.h264", "h264_gop30.mp4"} {
			d, err := Open(ctx, testVideoPath(t, name), Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got[i], err = d.Frames(ctx, times, Size{}, nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			d.Close()
		}
		for i := range times {
			raw, mp4 := got[0][i], got[1][i]
			if raw.PTS != mp4.PTS || raw.Index != mp4.Index || meanAbsDiff(raw.RGB, mp4.RGB) > 0.5 {
				t.Errorf("time %v: raw stream gave frame %d at %v, the MP4 frame %d at %v (pixels differ by %.2f)",
					times[i], raw.Index, raw.PTS, mp4.Index, mp4.PTS, meanAbsDiff(raw.RGB, mp4.RGB))
			}
		}
	})
}
