package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// The image tower check: a vision tower of CLIP ViT-B/32's shape, built
// from a seed where the check runs (352 MB of weights are cheaper to draw
// than to carry), opened through package models on ONNX Runtime, embedding
// the preprocessing checks' seeded 1080p frames. The CPU's embeddings are
// computed here into the reference; the GPU machine holds its own to them
// within a tolerance of the arithmetic it ran in, and measures frames/s at
// the batch of 256.
const (
	towerBatch      = prepBatch // the batch
	towerTarget     = 5_000.0   // frames/s, the figure on the H200
	towerSeedOffset = 3         // the tower's weights: the reference's seed + 3
)

// towerConfig is openai/clip-vit-base-patch32's vision tower (its
// config.json: image_size 224, patch_size 32, hidden_size 768,
// num_attention_heads 12, num_hidden_layers 12, intermediate_size 3072,
// projection_dim 512). onnxbuild's tower pools the mean of its 49 patch rows
// where CLIP reads a class token (50 rows, 0.03% more work); the text tower
// is TinyCLIP's, opened because ImageText opens both, and never run.
func towerConfig(seed uint64) onnxbuild.CLIPConfig {
	c := onnxbuild.TinyCLIP
	c.Vision = onnxbuild.VisionConfig{Channels: 3, Image: 224, Patch: 32, Hidden: 768, Heads: 12, Layers: 12, FFN: 3072}
	c.Embed = 512
	c.Seed = seed
	return c
}

// towerParams counts the vision tower's weights and its projection's.
func towerParams(c onnxbuild.CLIPConfig) int64 {
	v := c.Vision
	d, f, p := int64(v.Hidden), int64(v.FFN), int64(v.Image/v.Patch)*int64(v.Image/v.Patch)
	patch := d*int64(v.Channels*v.Patch*v.Patch) + d + p*d
	layer := 4*(d*d+d) + (d*f + f) + (f*d + d) + 2*2*d
	return patch + 2*d + int64(v.Layers)*layer + 2*d + d*int64(c.Embed) + int64(c.Embed)
}

// towerFLOPs is one image's multiply-adds, doubled: the patch convolution,
// per layer the four attention projections, the two products of
// attention (P x P x D each) and the feed-forward pair, and the
// projection. Layer norms, softmax and GELU are left out (under 1%).
func towerFLOPs(c onnxbuild.CLIPConfig) float64 {
	v := c.Vision
	d, f := float64(v.Hidden), float64(v.FFN)
	p := float64((v.Image / v.Patch) * (v.Image / v.Patch))
	patch := p * d * float64(v.Channels*v.Patch*v.Patch)
	layer := 4*p*d*d + 2*p*p*d + 2*p*d*f
	return 2 * (patch + float64(v.Layers)*layer + d*float64(c.Embed))
}

func towerShape(c onnxbuild.CLIPConfig) string {
	v := c.Vision
	return fmt.Sprintf("CLIP ViT-B/32-shaped vision tower: %dx%d, patch %d, width %d, %d heads, %d layers, FFN %d, projection %d; %.1fM parameters, %.2f GFLOP a frame",
		v.Image, v.Image, v.Patch, v.Hidden, v.Heads, v.Layers, v.FFN, c.Embed, float64(towerParams(c))/1e6, towerFLOPs(c)/1e9)
}

// A towerModel is the tower written as a models directory (models.json
// with one image_text role) in a temporary folder.
type towerModel struct {
	dir     string
	sha256  string  // of vision_model.onnx
	seconds float64 // drawing the weights and writing the folder
}

const towerManifest = `{"roles": {"image_text": {"dir": "image_text", "max_length": 77}}}` + "\n"

// buildTower draws the tower from c's seed and writes it, with CLIP's
// preprocessor_config.json, into a new folder under tmp ("" is the
// system's); Close removes it.
func buildTower(c onnxbuild.CLIPConfig, tmp string) (_ *towerModel, err error) {
	dir, err := os.MkdirTemp(tmp, "vidscreen-tower-")
	if err != nil {
		return nil, fmt.Errorf("image tower: %w", err)
	}
	t := &towerModel{dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("image tower: %w", err), t.Close())
		}
	}()
	start := time.Now()
	sub := filepath.Join(dir, "image_text")
	if err := onnxbuild.NewCLIP(c).WriteDir(sub); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), onnxbuild.WordPieceTokenizer(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(towerManifest), 0o644); err != nil {
		return nil, err
	}
	if t.sha256, err = fileSHA256(filepath.Join(sub, "vision_model.onnx")); err != nil {
		return nil, err
	}
	t.seconds = time.Since(start).Seconds()
	return t, nil
}

func (t *towerModel) Close() error { return os.RemoveAll(t.dir) }

// preprocessor is the tower's own preprocessor_config.json, as models
// loads it.
func (t *towerModel) preprocessor() (*imageprep.Processor, error) {
	path := filepath.Join(t.dir, "image_text", "preprocessor_config.json")
	cfg, err := imageprep.ReadConfig(path)
	if err != nil {
		return nil, err
	}
	p, err := imageprep.New(*cfg, imageprep.Options{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// open opens the tower on dev with up to towerBatch images a run.
func (t *towerModel) open(rt *models.Runtime, dev gpu.Device) (*models.ImageText, error) {
	man, err := models.LoadManifest(t.dir)
	if err != nil {
		return nil, err
	}
	it, err := rt.OpenImageText(man, dev)
	if err != nil {
		return nil, err
	}
	it.MaxBatch = towerBatch
	return it, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// towerFrames returns n seeded 1080p frames that stay distinct pictures
// after the tower's 1080p-to-224 resize: each channel a sum of four
// products of low-frequency sinusoids in x and in y (0.5 to 6 cycles a
// frame, random phases and amplitudes), with a little noise. The
// preprocessing checks' frames are made to stress the resize instead
// (noise, which averages to grey at 224, and gradients that differ only
// in their noise), so two of them embed almost alike.
func towerFrames(seed uint64, n int) []imageprep.Frame {
	rng := rand.New(rand.NewPCG(seed, 0x70e7))
	const waves = 4
	frames := make([]imageprep.Frame, n)
	cx, cy := make([]float64, waves*prepW), make([]float64, waves*prepH)
	for f := range frames {
		pix := make([]byte, 3*prepW*prepH)
		for c := 0; c < 3; c++ {
			var amp [waves]float64
			for k := 0; k < waves; k++ {
				amp[k] = 20 + 20*rng.Float64()
				fx, fy := 0.5+5.5*rng.Float64(), 0.5+5.5*rng.Float64()
				px, py := 2*math.Pi*rng.Float64(), 2*math.Pi*rng.Float64()
				for x := 0; x < prepW; x++ {
					cx[k*prepW+x] = math.Sin(2*math.Pi*fx*float64(x)/prepW + px)
				}
				for y := 0; y < prepH; y++ {
					cy[k*prepH+y] = math.Sin(2*math.Pi*fy*float64(y)/prepH + py)
				}
			}
			for y := 0; y < prepH; y++ {
				for x := 0; x < prepW; x++ {
					v := 128 + float64(rng.IntN(9)-4)
					for k := 0; k < waves; k++ {
						v += amp[k] * cx[k*prepW+x] * cy[k*prepH+y]
					}
					pix[3*(y*prepW+x)+c] = byte(min(255, max(0, int(math.Round(v)))))
				}
			}
		}
		frames[f] = imageprep.Frame{Pix: pix, Width: prepW, Height: prepH}
	}
	return frames
}

// towerImages preprocesses frames with p into one batch, and returns it
// repeated to n images (the rate's batch; n <= len(frames) keeps the
// first n).
func towerImages(ctx context.Context, p *imageprep.Processor, frames []imageprep.Frame, n int) (models.ImageBatch, error) {
	h, w := p.OutputSize()
	one := make([]float32, len(frames)*p.FrameLen())
	if err := p.Batch(ctx, frames, one); err != nil {
		return models.ImageBatch{}, err
	}
	b := models.ImageBatch{N: n, C: 3, H: h, W: w, Data: make([]float32, n*p.FrameLen())}
	for i := 0; i < n; i++ {
		k := i % len(frames)
		copy(b.Data[i*p.FrameLen():(i+1)*p.FrameLen()], one[k*p.FrameLen():(k+1)*p.FrameLen()])
	}
	return b, nil
}

// An embDiff is how far one run's unit embeddings lie from another's: the
// largest absolute difference of any value, the smallest cosine of a row
// with its counterpart, and the smallest cosine once the reference's mean
// embedding is taken from both. A random tower maps every picture into a
// narrow cone (two of the seeded frames meet at cosine 0.996), so plain
// cosines say little; centred, distinct frames are far apart and the same
// frame's runs stay near 1.
type embDiff struct {
	MaxAbs     float64 `json:"max_abs_diff"`
	MinCosine  float64 `json:"min_cosine"`
	MinCentred float64 `json:"min_centred_cosine"`
}

// A tolerance bounds an embDiff: MaxAbs from above, MinCentred from below.
type tolerance struct {
	MaxAbs     float64 `json:"max_abs_diff"`
	MinCentred float64 `json:"min_centred_cosine"`
}

// The tolerances, for unit embeddings of 512 values (about 0.044 each):
//
//   - fp32: both runs in float32, differing in summation order and kernels
//     (MLAS on the CPU, cuBLAS and cuDNN with use_tf32=0, MLAS on another
//     CPU's instruction set). Here ONNX Runtime's CPU embeddings and
//     onnxbuild's plain Go float32 forward pass of the same tower differ by
//     at most 6e-8 (1 - cosine 6e-14), and 1 and 2 threads agree bit for
//     bit; 1e-5 and 1 - 1e-6 leave two orders of magnitude for other
//     kernels.
//   - tf32: the CUDA provider's default (use_tf32=1, ONNX Runtime's
//     CUDAExecutionProviderInfo): every GEMM and convolution rounds its
//     float32 inputs to TF32's 10-bit mantissa, 2^-11 relative each, so a
//     product errs by about 4e-4 relative and some fifty of them in series
//     (through residual sums and layer norms) by a few 1e-3 of the
//     embedding's norm: about 1e-4 a value, and against the centred
//     embedding (norm about 0.1) a cosine near 0.9995. 2e-3 and 0.99 leave
//     about ten times that, and stay inside what separates two distinct
//     seeded frames (TestTowerToleranceSeparatesFrames).
var (
	fp32Tol = tolerance{MaxAbs: 1e-5, MinCentred: 1 - 1e-6}
	tf32Tol = tolerance{MaxAbs: 2e-3, MinCentred: 0.99}
)

func (t tolerance) within(d embDiff) bool {
	return d.MaxAbs <= t.MaxAbs && d.MinCentred >= t.MinCentred
}

// meanRow is the mean of rows, in float64.
func meanRow(rows [][]float32) []float64 {
	if len(rows) == 0 {
		return nil
	}
	m := make([]float64, len(rows[0]))
	for _, r := range rows {
		for k, v := range r {
			m[k] += float64(v)
		}
	}
	for k := range m {
		m[k] /= float64(len(rows))
	}
	return m
}

// compareEmbeddings compares got with want row by row, centring both on
// mean (the reference's meanRow).
func compareEmbeddings(got, want [][]float32, mean []float64) (embDiff, error) {
	if len(got) != len(want) || len(got) == 0 {
		return embDiff{}, fmt.Errorf("%d embeddings, the reference has %d", len(got), len(want))
	}
	d := embDiff{MinCosine: 1, MinCentred: 1}
	for i := range got {
		if len(got[i]) != len(want[i]) || len(want[i]) != len(mean) {
			return embDiff{}, fmt.Errorf("embedding %d has %d values, the reference's %d", i, len(got[i]), len(want[i]))
		}
		var dot, ng, nw, cdot, cg, cw float64
		for k, gv := range got[i] {
			g, w := float64(gv), float64(want[i][k])
			d.MaxAbs = math.Max(d.MaxAbs, math.Abs(g-w))
			dot, ng, nw = dot+g*w, ng+g*g, nw+w*w
			g, w = g-mean[k], w-mean[k]
			cdot, cg, cw = cdot+g*w, cg+g*g, cw+w*w
		}
		if ng == 0 || nw == 0 || cg == 0 || cw == 0 {
			return embDiff{}, fmt.Errorf("embedding %d is zero or the mean", i)
		}
		d.MinCosine = math.Min(d.MinCosine, dot/math.Sqrt(ng*nw))
		d.MinCentred = math.Min(d.MinCentred, cdot/math.Sqrt(cg*cw))
	}
	return d, nil
}

// closestFrames is how near two distinct rows of e come: the largest
// cosine and centred cosine (on e's mean) and the smallest largest
// difference over every pair, which a tolerance must stay well inside.
func closestFrames(e [][]float32) embDiff {
	mean := meanRow(e)
	near := embDiff{MaxAbs: math.Inf(1), MinCosine: -1, MinCentred: -1}
	for i := range e {
		for j := i + 1; j < len(e); j++ {
			d, err := compareEmbeddings(e[i:i+1], e[j:j+1], mean)
			if err != nil {
				continue
			}
			near.MaxAbs = math.Min(near.MaxAbs, d.MaxAbs)
			near.MinCosine = math.Max(near.MinCosine, d.MinCosine)
			near.MinCentred = math.Max(near.MinCentred, d.MinCentred)
		}
	}
	return near
}
