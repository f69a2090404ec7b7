package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// benchLayers is how many of BERT-base's 12 layers the real-shaped
// benchmark model has: 4 by default so one run fits a shared 2-core machine;
// VIDSCREEN_BENCH_LAYERS=12 gives the whole model.
func benchLayers() int {
	if n, err := strconv.Atoi(os.Getenv("VIDSCREEN_BENCH_LAYERS")); err == nil && n > 0 {
		return n
	}
	return 4
}

// benchDevice is where the benchmarks run: VIDSCREEN_BENCH_DEVICE (cpu,
// cuda:N; default cpu). A CUDA device that falls back to the CPU fails the
// benchmark rather than report CPU figures under a GPU's name.
func benchDevice(b *testing.B, rt *Runtime) gpu.Device {
	dev := gpu.CPUDevice()
	if v := os.Getenv("VIDSCREEN_BENCH_DEVICE"); v != "" {
		spec, err := gpu.ParseSpec(v)
		if err != nil {
			b.Fatal(err)
		}
		if ords := spec.Ordinals(); len(ords) > 0 {
			dev = gpu.Device{Kind: gpu.CUDA, Index: ords[0]}
		}
	}
	b.Cleanup(func() {
		if dev.Kind == gpu.CUDA && rt.CUDAFailure() != nil {
			b.Errorf("%s fell back to the CPU: %v", dev.ID(), rt.CUDAFailure())
		}
	})
	return dev
}

var bertBase struct {
	once sync.Once
	path string
	err  error
}

// bertBaseModel builds an encoder with BERT-base dimensions (random
// weights) once per process.
func bertBaseModel(b *testing.B) string {
	tinyModels(b)
	bertBase.once.Do(func() {
		cfg := onnxbuild.BERTBase
		cfg.Layers = benchLayers()
		dir := filepath.Join(fixtures.tmpRoot, "bert-base")
		bertBase.err = onnxbuild.NewEncoder(cfg).WriteDir(dir)
		bertBase.path = filepath.Join(dir, "model.onnx")
	})
	if bertBase.err != nil {
		b.Fatal(bertBase.err)
	}
	return bertBase.path
}

// benchSeqs are n sequences with lengths of real questions: 10 to 40
// WordPiece tokens (nextqa and star questions are mostly 10 to 25).
func benchSeqs(n int) [][]int { return randomIDs(77, n, 10, 40, 1000, 30522, 101, 102) }

// encoderBenchCases are the encoders the text benchmarks run: the tiny
// test model and a BERT-base-shaped one built at run time.
func encoderBenchCases(b *testing.B, dir string) []struct {
	name string
	path func() string
} {
	return []struct {
		name string
		path func() string
	}{
		{"tiny", func() string { return filepath.Join(dir, "bge", "model.onnx") }},
		{fmt.Sprintf("bert-base-L%d", benchLayers()), func() string { return bertBaseModel(b) }},
	}
}

// openBenchEncoder opens path as a CLS-pooled text encoder on the bench device.
func openBenchEncoder(b *testing.B, rt *Runtime, path string) (*Session, *TextEncoder) {
	b.Helper()
	s, err := rt.NewSession(path, benchDevice(b, rt), DynamicShapes)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := NewTextEncoder(s, nil, PoolCLS, 512)
	if err != nil {
		s.Close()
		b.Fatal(err)
	}
	return s, enc
}

func BenchmarkTextEncoder(b *testing.B) {
	rt, dir := tinyModels(b)
	for _, tc := range encoderBenchCases(b, dir) {
		b.Run(tc.name, func(b *testing.B) {
			s, enc := openBenchEncoder(b, rt, tc.path())
			defer s.Close()
			seqs := benchSeqs(256)
			b.ResetTimer()
			for b.Loop() {
				if _, err := enc.EmbedIDs(context.Background(), seqs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(seqs)*b.N)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}

// BenchmarkHarnessVsRaw compares the harness end to end (tokens in,
// unit vectors out, through the dynamic batcher with concurrent callers)
// with bare session runs on the same padded batches (tensors prepared in
// advance, outputs discarded). The two alternate inside each iteration so a
// shared machine slows both alike; "harness/raw" is the throughput ratio.
func BenchmarkHarnessVsRaw(b *testing.B) {
	rt, dir := tinyModels(b)
	for _, tc := range encoderBenchCases(b, dir) {
		b.Run(tc.name, func(b *testing.B) {
			s, enc := openBenchEncoder(b, rt, tc.path())
			defer s.Close()
			const batch = 32
			enc.MaxBatch = batch
			seqs := benchSeqs(256)
			lengths := make([]int, len(seqs))
			for i, q := range seqs {
				lengths[i] = len(q)
			}
			// The raw side: the same bucketed batches, as ready tensors.
			var raw []inputSet
			for _, p := range planBatches(lengths, 512, batch) {
				part := make([][]int, len(p.rows))
				for j, i := range p.rows {
					part[j] = seqs[i]
				}
				in := inputSet{}
				if err := padTexts(part, p.length, 0).feed(s, in); err != nil {
					b.Fatal(err)
				}
				raw = append(raw, in)
			}
			defer func() {
				for _, in := range raw {
					in.destroy()
				}
			}()
			rawRun := func() {
				for _, in := range raw {
					ins := make([]ort.Value, len(s.inputs))
					for i, x := range s.inputs {
						ins[i] = in[x.Name]
					}
					outs := make([]ort.Value, len(s.outputs))
					if err := s.s.Run(ins, outs); err != nil {
						b.Fatal(err)
					}
					destroyValues(outs)
				}
			}
			// BatchedEmbedder as NewBatchedEmbedder makes it, counting the
			// batches it forms.
			var runs, rows atomic.Int64
			key := func(ids []int) int { return bucketLen(len(ids), enc.maxLen) }
			be := &BatchedEmbedder{enc: enc, b: NewBatcher(BatchOptions{MaxBatch: batch, MaxWait: time.Millisecond}, key,
				func(ctx context.Context, reqs [][]int) ([][]float32, error) {
					runs.Add(1)
					rows.Add(int64(len(reqs)))
					return enc.EmbedIDs(ctx, reqs)
				})}
			defer be.Close()
			const callers = 8
			harnessRun := func() {
				var wg sync.WaitGroup
				for c := range callers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var mine [][]int
						for i := c; i < len(seqs); i += callers {
							mine = append(mine, seqs[i])
						}
						if _, err := be.EmbedIDs(context.Background(), mine); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
			}
			rawRun()
			harnessRun()
			var tRaw, tHarness time.Duration
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				rawRun()
				t1 := time.Now()
				harnessRun()
				tRaw += t1.Sub(t0)
				tHarness += time.Since(t1)
			}
			n := float64(len(seqs) * b.N)
			b.ReportMetric(n/tRaw.Seconds(), "raw-texts/s")
			b.ReportMetric(n/tHarness.Seconds(), "harness-texts/s")
			b.ReportMetric(100*tRaw.Seconds()/tHarness.Seconds(), "harness/raw-%")
			b.ReportMetric(float64(len(seqs))/float64(len(raw)), "raw-rows/batch")
			b.ReportMetric(float64(rows.Load())/float64(runs.Load()), "harness-rows/batch")
		})
	}
}

func BenchmarkImageText(b *testing.B) {
	rt, dir := tinyModels(b)
	m, err := LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	it, err := rt.OpenImageText(m, benchDevice(b, rt))
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	imgs := randomImages(1, 64, 3, 32)
	b.Run("images", func(b *testing.B) {
		for b.Loop() {
			if _, err := it.EmbedImages(context.Background(), imgs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(imgs.N*b.N)/b.Elapsed().Seconds(), "images/s")
	})
	seqs := randomIDs(2, 256, 8, 30, 256, 49000, 49406, 49407)
	b.Run("texts", func(b *testing.B) {
		for b.Loop() {
			if _, err := it.EmbedTextIDs(context.Background(), seqs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(seqs)*b.N)/b.Elapsed().Seconds(), "texts/s")
	})
}

// BenchmarkLetterScorer scores prompts with the tiny LM exported two ways:
// logits for every position (older exports) and for the last position only
// (exports with num_logits_to_keep), which the scorer then left-pads for.
func BenchmarkLetterScorer(b *testing.B) {
	rt, dir := tinyModels(b)
	keepDir := filepath.Join(fixtures.tmpRoot, "lm-keep")
	cfg := onnxbuild.TinyLM
	cfg.LogitsToKeep = true
	if err := onnxbuild.NewLM(cfg, 3).WriteLMDir(keepDir, true); err != nil {
		b.Fatal(err)
	}
	// Prompts of 40 to 100 tokens: a question with four or five options.
	seqs := randomIDs(3, 64, 40, 100, 1000, 30522, 101, 102)
	opts := make([]int, len(seqs))
	for i := range opts {
		opts[i] = 4
	}
	for _, tc := range []struct{ name, path string }{
		{"all-positions", filepath.Join(dir, "lm", "model.onnx")},
		{"last-position", filepath.Join(keepDir, "model.onnx")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := rt.NewSession(tc.path, benchDevice(b, rt), DynamicShapes)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ls, err := NewLetterScorer(s, wordTokenizer{}, RoleSpec{MaxLength: 120})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := ls.ScoreIDs(context.Background(), seqs, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(seqs)*b.N)/b.Elapsed().Seconds(), "prompts/s")
		})
	}
}

func BenchmarkCaptioner(b *testing.B) {
	rt, dir := tinyModels(b)
	m, err := LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	c, err := rt.OpenCaptioner(m, benchDevice(b, rt))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.MaxNewTokens = 16
	imgs := randomImages(4, 32, 3, 32)
	tokens := 0
	for b.Loop() {
		caps, err := c.Caption(context.Background(), imgs)
		if err != nil {
			b.Fatal(err)
		}
		for _, cp := range caps {
			tokens += len(cp.IDs)
		}
	}
	b.ReportMetric(float64(imgs.N*b.N)/b.Elapsed().Seconds(), "captions/s")
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkVLMReader(b *testing.B) {
	rt, dir := tinyModels(b)
	m, err := LoadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	v, err := rt.OpenVLMReader(m, benchDevice(b, rt))
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	frames := randomImages(5, 4*16, 3, 32)
	var prompts []VLMPrompt
	for i := range 16 {
		prompts = append(prompts, VLMPrompt{
			Text:    "Frames: <image><image><image><image> Question: " + questions[i%len(questions)] + " A. yes B. no C. maybe D. never Answer:",
			Images:  frames.slice(4*i, 4*i+4),
			Options: 4,
		})
	}
	for b.Loop() {
		if _, err := v.Score(context.Background(), prompts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(prompts)*b.N)/b.Elapsed().Seconds(), "prompts/s")
}
