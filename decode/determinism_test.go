package decode

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// determinismVideos are every shared real video and generated ones, one of
// them tagged BT.709 (smpte-2997.mp4 is too), decoded at output widths
// that are odd for their shapes (57, 43, 199: swscale handles odd widths
// on a path of its own).
func determinismVideos(t *testing.T) []string {
	t.Helper()
	paths := []string{testVideoPath(t, "h264_bt709.mp4"), testVideoPath(t, "hevc_gop10.mp4")}
	if !testing.Short() {
		real, err := filepath.Glob(filepath.Join(realVideoDir(t), "*"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, real...)
	}
	return paths
}

// determinismCases pair samplers (evenly spread, seeded, by rate, one
// frame) with output sizes.
var determinismCases = []struct {
	sampler string
	size    Size
}{
	{"uniform:32", Size{Short: 32}},
	{"window:6,frac:0.2", Size{Short: 45}},
	{"fps:1.5", Size{Short: 112}},
	{"centre", Size{}},
}

const determinismSeed = 7

// frameDigests hashes each frame's time, size and pixels.
func frameDigests(frames []Frame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = fmt.Sprintf("%v %dx%d %x", f.PTS, f.Width, f.Height, sha256.Sum256(f.RGB))
	}
	return out
}

func compareDigests(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d frames, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: frame %d is %s, first decode gave %s", what, i, got[i], want[i])
		}
	}
}

// TestFramesAreDeterministic decodes each video with each sampler three
// times with fresh decoders, three more times through one decoder handed
// its previous frames back (so stale buffers would show), and through a
// Pool of 1 and 3 workers: every decode must give the same bytes.
func TestFramesAreDeterministic(t *testing.T) {
	ctx := context.Background()
	videos := determinismVideos(t)
	want := map[string][]string{} // by video and case
	var jobs []Job
	for _, path := range videos {
		for _, c := range determinismCases {
			key := filepath.Base(path) + " " + c.sampler
			s, err := ParseSampler(c.sampler)
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, Job{Path: path, Sampler: s, Seed: determinismSeed, Size: c.size})

			d, err := Open(ctx, path, Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			times, err := Sample(d.Info(), Clip{}, c.sampler, determinismSeed)
			if err != nil {
				t.Fatal(err)
			}
			var reused []Frame
			for run := 0; run < 3; run++ {
				if reused, err = d.Frames(ctx, times, c.size, reused); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				got := frameDigests(reused)
				if run == 0 {
					want[key] = got
					continue
				}
				compareDigests(t, fmt.Sprintf("%s, decode %d with the same decoder", key, run+1), want[key], got)
			}
			d.Close()
			for run := 0; run < 3; run++ {
				d, err := Open(ctx, path, Options{Threads: 1})
				if err != nil {
					t.Fatal(err)
				}
				frames, err := d.Frames(ctx, times, c.size, nil)
				d.Close()
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				compareDigests(t, fmt.Sprintf("%s, fresh decoder %d", key, run+1), want[key], frameDigests(frames))
			}
		}
	}
	for _, workers := range []int{1, 3} {
		p := &Pool{Workers: workers, Threads: 1, Queue: 1}
		err := p.Run(ctx, jobs, func(r *Result) error {
			key := filepath.Base(r.Job.Path) + " " + r.Job.Sampler.String()
			if r.Err != nil {
				t.Errorf("%s with %d workers: %v", key, workers, r.Err)
				return nil
			}
			compareDigests(t, fmt.Sprintf("%s, pool of %d", key, workers), want[key], frameDigests(r.Frames))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestOddWidthFramesMatchFFmpeg checks smpte-2997.mp4 (BT.709) and the
// generated BT.709 clip at an odd output width against ffmpeg's frame at
// each asked time: the last frame shown at or before it, by ffprobe's
// frame times, with ffmpeg's pixels. swscale remade its context for every
// odd-width frame, and the remade one sometimes kept BT.601 colours.
func TestOddWidthFramesMatchFFmpeg(t *testing.T) {
	ctx := context.Background()
	paths := []string{testVideoPath(t, "h264_bt709.mp4")}
	if !testing.Short() {
		paths = append(paths, filepath.Join(realVideoDir(t), "smpte-2997.mp4"))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d, err := Open(ctx, path, Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			times, err := Sample(d.Info(), Clip{}, "uniform:8", determinismSeed)
			if err != nil {
				t.Fatal(err)
			}
			frames, err := d.Frames(ctx, times, Size{Short: 32}, nil)
			if err != nil {
				t.Fatal(err)
			}
			all := framePTS(t, path)
			for i, f := range frames {
				if f.Width%2 == 0 {
					t.Fatalf("frame is %dx%d, want an odd width", f.Width, f.Height)
				}
				want := all[0]
				for _, p := range all {
					if p <= times[i] {
						want = p
					}
				}
				if diff := f.PTS - want; diff > time.Millisecond || diff < -time.Millisecond {
					t.Errorf("time %v: got the frame at %v, want the one at %v", times[i], f.PTS, want)
					continue
				}
				ref := ffmpegFrame(t, path, f.PTS, f.Width, f.Height)
				var worst int
				for k := range ref {
					worst = max(worst, absInt(int(ref[k])-int(f.RGB[k])))
				}
				t.Logf("time %v (frame at %v): mean abs difference %.3f, largest %d", times[i], f.PTS, meanAbsDiff(f.RGB, ref), worst)
				if d := meanAbsDiff(f.RGB, ref); d > 1 || worst > 8 {
					t.Errorf("time %v (frame at %v): mean abs difference %.2f (largest %d) from ffmpeg's frame", times[i], f.PTS, d, worst)
				}
			}
		})
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
