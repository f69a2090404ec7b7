package features

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/spread"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// benchVideosEnv names a directory of other videos to benchmark on (for
// instance the long-GOP files of scripts/make-test-videos.sh); by default
// the benchmarks read two of the shared videos.
const benchVideosEnv = "VIDSCREEN_BENCH_VIDEOS"

// benchItems are one whole-clip item per video of root.
func benchItems(b *testing.B, root string) []*harness.Item {
	entries, err := os.ReadDir(root)
	if err != nil {
		b.Fatal(err)
	}
	var out []*harness.Item
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, &harness.Item{ID: e.Name(), Benchmark: "B", Video: e.Name(), VideoPath: e.Name(), Question: "q", Options: []string{"a", "b"}})
		}
	}
	return out
}

// benchSets are the frame sets of the image_text attackers (no captions).
var benchSets = []Set{CentreSet, BagSet, UniformSet}

// BenchmarkExtract runs the whole feature stage (plan, hash, decode,
// preprocess, image tower, store) on the shared videos with nothing cached,
// and reports videos/s and frames/s: compare with the stages alone below.
func BenchmarkExtract(b *testing.B) {
	openTiny(b)
	root := benchRoot(b)
	items := benchItems(b, root)
	ctx := context.Background()
	var frames, videos int
	start := time.Now()
	for b.Loop() {
		opt := testOptions(root, b.TempDir(), 2)
		opt.Sets, opt.Captioner = benchSets, nil
		res, err := Extract(ctx, items, opt)
		if err != nil {
			b.Fatal(err)
		}
		frames += res.Stats.FramesEmbedded
		videos += res.Stats.Computed
	}
	s := time.Since(start).Seconds()
	b.ReportMetric(float64(frames)/s, "frames/s")
	b.ReportMetric(float64(videos)/s, "videos/s")
}

// BenchmarkDecodeStage decodes the same plans alone (decode.Pool, as
// Extract runs it) and reports frames/s.
func BenchmarkDecodeStage(b *testing.B) {
	root := benchRoot(b)
	items := benchItems(b, root)
	var jobs []decode.Job
	for _, it := range items {
		path, err := harness.ResolveVideo(root, it)
		if err != nil {
			b.Fatal(err)
		}
		var reqs []request
		for _, s := range benchSets {
			reqs = append(reqs, request{clip: clipOf(it), set: s})
		}
		jobs = append(jobs, decode.Job{Path: path, Sampler: newPlan(reqs), Size: decode.Size{Short: 32}})
	}
	frames := 0
	start := time.Now()
	for b.Loop() {
		pool := decode.Pool{Workers: 2, Threads: 1}
		if err := pool.Run(context.Background(), jobs, func(r *decode.Result) error {
			frames += len(r.Frames)
			return r.Err
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(frames)/time.Since(start).Seconds(), "frames/s")
}

// BenchmarkInferenceStage runs preprocessing and the image tower alone on
// 32-frame runs of decoded-size frames and reports frames/s.
func BenchmarkInferenceStage(b *testing.B) {
	openTiny(b)
	frame := imageprep.Frame{Pix: make([]byte, 3*57*32), Width: 57, Height: 32}
	for i := range frame.Pix {
		frame.Pix[i] = byte(i * 13)
	}
	batch := make([]imageprep.Frame, 32)
	for i := range batch {
		batch[i] = frame
	}
	h, w := tiny.prep.OutputSize()
	pix := make([]float32, len(batch)*tiny.prep.FrameLen())
	ctx := context.Background()
	frames := 0
	start := time.Now()
	for b.Loop() {
		if err := tiny.prep.Batch(ctx, batch, pix); err != nil {
			b.Fatal(err)
		}
		if _, err := tiny.it.EmbedImages(ctx, models.ImageBatch{N: len(batch), C: 3, H: h, W: w, Data: pix}); err != nil {
			b.Fatal(err)
		}
		frames += len(batch)
	}
	b.ReportMetric(float64(frames)/time.Since(start).Seconds(), "frames/s")
}

// benchRoot is a video root with copies of two shared videos.
func benchRoot(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv(benchVideosEnv); dir != "" {
		return dir
	}
	src := sharedVideos(b)
	root := b.TempDir()
	copyVideo(b, src, root, "big_buck_bunny_0_30_h264_640.mp4", "bbb.mp4")
	copyVideo(b, src, root, "big_buck_bunny_432_433.webm", "short.webm")
	return root
}

// tinyVLM opens the tiny models' vlm_reader on the CPU for one benchmark,
// closed when it ends.
func tinyVLM(b *testing.B) *models.VLMReader {
	b.Helper()
	openTiny(b)
	m, err := models.LoadManifest(tiny.dir)
	if err != nil {
		b.Fatal(err)
	}
	vlm, err := tiny.rt.OpenVLMReader(m, gpu.CPUDevice())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { vlm.Close() })
	return vlm
}

// BenchmarkReadVLM runs the VLM readers' part of the feature stage (hash,
// decode, preprocess, the tiny vlm_reader's prefills) on the benchmark
// videos with nothing cached, the three frame sets per item, and reports
// items/s and prompts/s.
func BenchmarkReadVLM(b *testing.B) {
	vlm := tinyVLM(b)
	root := benchRoot(b)
	items := benchItems(b, root)
	centre, shuffled, tenth := VLMSets(UniformFrames)
	ctx := context.Background()
	var prompts, done int
	start := time.Now()
	for b.Loop() {
		got, err := ReadVLM(ctx, items, VLMOptions{
			Root: root, CacheDir: b.TempDir(), Sets: []VLMSet{centre, shuffled, tenth},
			Reader: vlm, ReaderName: "tiny-vlm", Size: decode.Size{Short: 32},
			Decode: decode.Pool{Workers: 2, Threads: 1}, Seed: 1,
		})
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range got {
			prompts += len(g)
			if g != nil {
				done++
			}
		}
	}
	s := time.Since(start).Seconds()
	b.ReportMetric(float64(done)/s, "items/s")
	b.ReportMetric(float64(prompts)/s, "prompts/s")
}

// BenchmarkExtractWithVLM runs the one pass of an audit with VLM readers:
// each video decoded once for the image tower's sets and the three VLM
// sets, the frames embedded and the prompts scored, nothing cached. It
// reports videos/s and VLM items/s (compare BenchmarkExtract and
// BenchmarkReadVLM, the two halves alone).
func BenchmarkExtractWithVLM(b *testing.B) {
	vlm := tinyVLM(b)
	root := benchRoot(b)
	items := benchItems(b, root)
	centre, shuffled, tenth := VLMSets(UniformFrames)
	ctx := context.Background()
	var videos, scored int
	start := time.Now()
	for b.Loop() {
		opt := testOptions(root, b.TempDir(), 2)
		opt.Sets, opt.Captioner = benchSets, nil
		opt.VLMSets, opt.VLM, opt.VLMName, opt.Seed = []VLMSet{centre, shuffled, tenth}, vlm, "tiny-vlm", 1
		res, err := Extract(ctx, items, opt)
		if err != nil {
			b.Fatal(err)
		}
		videos += res.Stats.Opened
		for _, it := range res.Items {
			if it.VLM != nil {
				scored++
			}
		}
	}
	s := time.Since(start).Seconds()
	b.ReportMetric(float64(videos)/s, "videos/s")
	b.ReportMetric(float64(scored)/s, "items/s")
}

// BenchmarkExtractDevices runs the feature stage of an audit with the
// image and VLM readers (decode, image tower, vlm_reader's three sets) on
// 1, 2 and 4 emulated CPU devices (--device cpu:N: a decoder set, an image
// tower and a vlm_reader per device under one gpu.Pool, vlm_reader's
// prompts spread by harness/spread), nothing cached, over eight copies of
// a short video (or the videos of VIDSCREEN_BENCH_VIDEOS), and reports
// items/s and frames/s. On this machine's two cores the emulated devices
// share the same cores, so it measures the placement's overhead and
// overlap, not a GPU's speed-up.
func BenchmarkExtractDevices(b *testing.B) {
	openTiny(b)
	root := os.Getenv(benchVideosEnv)
	if root == "" {
		src := sharedVideos(b)
		root = b.TempDir()
		for k := range 8 {
			copyVideo(b, src, root, "big_buck_bunny_432_433.webm", fmt.Sprintf("v%d.webm", k))
		}
	}
	items := benchItems(b, root)
	m, err := models.LoadManifest(tiny.dir)
	if err != nil {
		b.Fatal(err)
	}
	centre, shuffled, tenth := VLMSets(UniformFrames)
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("devices=%d", n), func(b *testing.B) {
			devs, _, err := gpu.Select(gpu.Spec{CPUs: n}, gpu.Inventory{})
			if err != nil {
				b.Fatal(err)
			}
			pool, err := gpu.NewPool(devs, gpu.PoolConfig{CPUWorkers: 4})
			if err != nil {
				b.Fatal(err)
			}
			var encs []ImageEncoder
			vlm := &spread.VLMScorer{Pool: pool, Work: "vlm_reader"}
			for range devs {
				it, err := tiny.rt.OpenImageText(m, gpu.CPUDevice())
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { it.Close() })
				encs = append(encs, it)
				vlm.Readers = append(vlm.Readers, tinyVLM(b))
			}
			ctx := context.Background()
			var done, frames int
			start := time.Now()
			for b.Loop() {
				opt := testOptions(root, b.TempDir(), 2)
				opt.Sets, opt.Captioner, opt.Image, opt.Devices = benchSets, nil, encs, pool
				opt.Decode.Sets = n
				opt.VLMSets, opt.VLM, opt.VLMName, opt.Seed = []VLMSet{centre, shuffled, tenth}, vlm, "tiny-vlm", 1
				res, err := Extract(ctx, items, opt)
				if err != nil {
					b.Fatal(err)
				}
				frames += res.Stats.FramesEmbedded
				for _, it := range res.Items {
					if it.Failure == "" && it.VLM != nil {
						done++
					}
				}
			}
			s := time.Since(start).Seconds()
			b.ReportMetric(float64(done)/s, "items/s")
			b.ReportMetric(float64(frames)/s, "frames/s")
		})
	}
}
