package decode

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// benchVideos are the small generated clips, plus the bench's large ones
// (scripts/make-test-videos.sh .cache/testvideos) when they exist.
func benchVideos(b *testing.B) []string {
	files := []string{
		testVideoPath(b, "h264_gop30.mp4"),
		testVideoPath(b, "hevc_gop10.mp4"),
		testVideoPath(b, "vp9.webm"),
	}
	big, _ := filepath.Glob(filepath.Join("..", ".cache", "testvideos", "*.*"))
	for _, f := range big {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && filepath.Base(f)[0] != '.' {
			files = append(files, f)
		}
	}
	return files
}

// BenchmarkUniform32 is the hot path of every frame-level attack: open a
// video, sample uniform:32, decode and resize to short side 224. It reports
// frames returned per second, the decoder's frames per second, and frames
// decoded per frame returned.
func BenchmarkUniform32(b *testing.B) {
	ctx := context.Background()
	for _, path := range benchVideos(b) {
		// The small clips and the bench's files share some names.
		name := filepath.Base(filepath.Dir(path)) + ":" + filepath.Base(path)
		b.Run(name, func(b *testing.B) {
			var dst []Frame
			var decoded, returned int
			for i := 0; i < b.N; i++ {
				d, err := Open(ctx, path, Options{Threads: 2})
				if err != nil {
					b.Fatal(err)
				}
				times, err := Sample(d.Info(), Clip{}, "uniform:32", 0)
				if err != nil {
					b.Fatal(err)
				}
				if dst, err = d.Frames(ctx, times, Size{Short: 224}, dst); err != nil {
					b.Fatal(err)
				}
				s := d.Stats()
				decoded += s.FramesDecoded
				returned += s.FramesOut
				d.Close()
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(returned)/secs, "frames/s")
			b.ReportMetric(float64(decoded)/secs, "decoded/s")
			b.ReportMetric(float64(decoded)/float64(returned), "decoded/returned")
		})
	}
}

// BenchmarkScaleRGB measures swscale's conversion of one decoded 1080p
// frame to RGB at short side 224, the per-frame cost after decoding, with
// the bicubic filter the decoder uses and two cheaper ones for comparison.
func BenchmarkScaleRGB(b *testing.B) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(realVideoDir(b), "smpte-2997.mp4"), Options{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	f, pts, err := d.frameAt(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	w, h := Size{Short: 224}.Of(d.Info().DisplaySize())
	for _, alg := range []struct {
		name  string
		flags int
	}{{"bicubic", swsBicubic}, {"bilinear", swsBilinear}, {"area", swsArea}} {
		b.Run(alg.name, func(b *testing.B) {
			d.scaler.free()
			d.scaler.flags = alg.flags
			defer func() { d.scaler.free(); d.scaler.flags = 0 }()
			var out Frame
			for i := 0; i < b.N; i++ {
				if err := d.convert(f, pts, w, h, &out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// BenchmarkPool decodes uniform:32 from a set of videos on pools of 1 and
// 2 decoders, to show throughput scaling with decoders.
func BenchmarkPool(b *testing.B) {
	paths := benchVideos(b)
	s, err := ParseSampler("uniform:32")
	if err != nil {
		b.Fatal(err)
	}
	var jobs []Job
	for _, p := range paths {
		jobs = append(jobs, Job{Path: p, Sampler: s, Size: Size{Short: 224}})
	}
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "1-decoder", 2: "2-decoders"}[workers], func(b *testing.B) {
			videos, frames := 0, 0
			for i := 0; i < b.N; i++ {
				p := &Pool{Workers: workers, Threads: 2 / workers}
				err := p.Run(context.Background(), jobs, func(r *Result) error {
					if r.Err != nil {
						return r.Err
					}
					videos++
					frames += len(r.Frames)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(videos)/secs, "videos/s")
			b.ReportMetric(float64(frames)/secs, "frames/s")
		})
	}
}
