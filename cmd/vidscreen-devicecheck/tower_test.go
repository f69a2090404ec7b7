package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestTowerShapeCounts: the parameter count and the FLOPs are the
// weights NewCLIP draws and the products by hand, on CLIP B/32's shape
// and on a small one.
func TestTowerShapeCounts(t *testing.T) {
	small := onnxbuild.TinyCLIP
	for _, tc := range []struct {
		name  string
		cfg   onnxbuild.CLIPConfig
		flops float64
	}{
		// 16 patches of 8x8x3, width 32, FFN 64, 1 layer, projection 16:
		// 2 (16*32*192 + 4*16*32*32 + 2*16*16*32 + 2*16*32*64 + 32*16).
		{"tiny", small, 2 * (16*32*192 + 4*16*32*32 + 2*16*16*32 + 2*16*32*64 + 32*16)},
		// 49 patches of 32x32x3, width 768, FFN 3072, 12 layers, projection 512.
		{"CLIP B/32", towerConfig(1), 2 * (49*768*3072 + 12*(4*49*768*768+2*49*49*768+2*49*768*3072) + 768*512)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := onnxbuild.NewCLIP(tc.cfg)
			v := m.Vision
			n := len(v.Patch.W) + len(v.Patch.B) + len(v.Patch.Pos) + len(v.LNPre.Gamma) + len(v.LNPre.Beta) +
				len(v.LNPost.Gamma) + len(v.LNPost.Beta) + len(m.VisionProj.W) + len(m.VisionProj.B)
			for _, b := range v.Blocks {
				for _, l := range []onnxbuild.Linear{b.Self.Q, b.Self.K, b.Self.V, b.Self.O, b.FF1, b.FF2} {
					n += len(l.W) + len(l.B)
				}
				n += len(b.LNSelf.Gamma) + len(b.LNSelf.Beta) + len(b.LNFF.Gamma) + len(b.LNFF.Beta)
			}
			if got := towerParams(tc.cfg); got != int64(n) {
				t.Errorf("towerParams %d, the model draws %d weights", got, n)
			}
			if got := towerFLOPs(tc.cfg); got != tc.flops {
				t.Errorf("towerFLOPs %g, want %g", got, tc.flops)
			}
		})
	}
	if s := towerShape(towerConfig(1)); !strings.Contains(s, "224x224, patch 32, width 768, 12 heads, 12 layers, FFN 3072, projection 512; 87.8M parameters") {
		t.Errorf("shape %q", s)
	}
}

func TestCompareEmbeddings(t *testing.T) {
	unit := func(v ...float32) []float32 {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(n))
		}
		return v
	}
	want := [][]float32{unit(1, 0.1, 0), unit(1, 0, 0.1)}
	mean := meanRow(want)
	for _, tc := range []struct {
		name    string
		got     [][]float32
		maxAbs  float64
		cos     float64 // min cosine, within 1e-9
		centred float64 // min centred cosine, within 1e-9
		err     string
	}{
		{name: "the same", got: want, maxAbs: 0, cos: 1, centred: 1},
		// The rows swapped: near in plain cosine (0.99), opposite centred.
		{name: "swapped", got: [][]float32{want[1], want[0]}, maxAbs: float64(want[0][1]), cos: float64(want[0][0] * want[1][0]), centred: -1},
		{name: "one row short", got: want[:1], err: "1 embeddings, the reference has 2"},
		{name: "a short row", got: [][]float32{want[0], want[1][:2]}, err: "embedding 1 has 2 values"},
		{name: "a zero row", got: [][]float32{want[0], {0, 0, 0}}, err: "embedding 1 is zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := compareEmbeddings(tc.got, want, mean)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(d.MaxAbs-tc.maxAbs) > 1e-7 || math.Abs(d.MinCosine-tc.cos) > 1e-6 || math.Abs(d.MinCentred-tc.centred) > 1e-9 {
				t.Errorf("%+v, want max abs %g, cosine %g, centred %g", d, tc.maxAbs, tc.cos, tc.centred)
			}
		})
	}
}

func TestToleranceWithin(t *testing.T) {
	for _, tc := range []struct {
		name string
		tol  tolerance
		d    embDiff
		want bool
	}{
		{"fp32 exact", fp32Tol, embDiff{0, 1, 1}, true},
		{"fp32 at its bound", fp32Tol, embDiff{1e-5, 0.9, 1 - 1e-6}, true},
		{"fp32 over by value", fp32Tol, embDiff{1.1e-5, 1, 1}, false},
		{"fp32 under by centred cosine", fp32Tol, embDiff{0, 1, 1 - 2e-6}, false},
		{"tf32's typical error", tf32Tol, embDiff{1e-4, 0.99999, 0.9995}, true},
		{"tf32's typical error under fp32", fp32Tol, embDiff{1e-4, 0.99999, 0.9995}, false},
		{"another frame under tf32", tf32Tol, embDiff{0.0118, 0.9958, 0.32}, false},
	} {
		if got := tc.tol.within(tc.d); got != tc.want {
			t.Errorf("%s: within %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTowerChecks builds the tower, computes the reference with ONNX
// Runtime's CPU library, carries it through JSON and runs the rows: the
// dry run (the CPU row equal, no GPU row), a GPU run with nothing staged
// (every row skipped with the reason, a LeftOut), and a GPU run on a
// library whose CUDA provider does not open here (the GPU rows say why,
// the later variants not tried). It checks that the tolerance of each
// row stays inside what separates two distinct frames.
func TestTowerChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("an 88M-parameter tower, built three times: not in -short")
	}
	ctx := context.Background()
	rc, err := towerReference(ctx, seed, towerOptions{tmp: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&Reference{Seed: seed, CPU: "test", Checks: []RefCheck{rc}})
	if err != nil {
		t.Fatal(err)
	}
	var ref Reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	tr := ref.Checks[0].Tower
	if len(tr.Embeddings) != prepDistinct || tr.CPUFramesPS <= 0 || tr.ModelSHA256 == "" || tr.Params != towerParams(towerConfig(1)) {
		t.Fatalf("reference %d embeddings, %v frames/s, model %q, %d params", len(tr.Embeddings), tr.CPUFramesPS, tr.ModelSHA256, tr.Params)
	}
	t.Run("tolerances inside the frames' separation", func(t *testing.T) {
		mean := meanRow(tr.Embeddings)
		for i := range tr.Embeddings {
			for j := range tr.Embeddings {
				if i == j {
					continue
				}
				d, err := compareEmbeddings(tr.Embeddings[i:i+1], tr.Embeddings[j:j+1], mean)
				if err != nil {
					t.Fatal(err)
				}
				// A tenth of the way from the reference to another frame
				// must still be outside: the tolerance is not near it.
				if d.MaxAbs < 4*tf32Tol.MaxAbs || d.MinCentred > 0.5 || tf32Tol.within(d) {
					t.Errorf("frames %d and %d: %+v, against tf32's %+v", i, j, d, tf32Tol)
				}
			}
		}
	})
	t.Run("dry run", func(t *testing.T) {
		rows, left, err := towerChecks(ctx, &ref, true, towerOptions{tmp: t.TempDir()}, 16)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1+len(towerVariants()) || len(left) != 0 {
			t.Fatalf("%d rows, %d left out; want the CPU row and every GPU row", len(rows), len(left))
		}
		r := rows[0]
		if r.Error != "" || r.Equal == nil || !*r.Equal || r.Tower.Diff.MaxAbs != 0 || !*r.Tower.ModelMatches || r.Tower.CPUHereFramesPS == nil {
			t.Fatalf("CPU row %+v, tower %+v", r, r.Tower)
		}
		if !strings.Contains(r.Tower.Staged, "nothing staged (dry run)") || r.CPUGFLOPs <= 0 {
			t.Errorf("CPU row: staged %q, %v GFLOP/s", r.Tower.Staged, r.CPUGFLOPs)
		}
		for _, r := range rows {
			if r.GPUCount != nil || r.GPUSeconds != nil || r.GPUTFLOPs != nil || r.Tower.GPUFramesPS != nil {
				t.Errorf("%s: GPU fields in the dry run: %+v %+v", r.Backend, r, r.Tower)
			}
		}
		for _, r := range rows[1:] {
			if r.Error != "" || r.Equal != nil || r.Tower.Diff != nil || r.Tower.Staged != "dry run: no GPU asked for" || r.Target == "" {
				t.Errorf("%s (%s): %+v %+v", r.Backend, r.Tower.Math, r, r.Tower)
			}
		}
	})
	t.Run("nothing staged", func(t *testing.T) {
		const why = "ORT's CUDA provider not staged: 1 of 3 parts in /tmp/x; missing: part-01 part-02"
		rows, left, err := towerChecks(ctx, &ref, false, towerOptions{staged: why}, 16)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1+len(towerVariants()) || len(left) != 1 || left[0].Reason != why {
			t.Fatalf("%d rows, left out %+v", len(rows), left)
		}
		for _, r := range rows {
			if r.Error != "skipped: "+why || r.Equal != nil || r.Tower.GPUFramesPS != nil || r.Tower.Staged != why {
				t.Errorf("%s row: error %q, staged %q", r.Backend, r.Error, r.Tower.Staged)
			}
		}
	})
	t.Run("no CUDA provider", func(t *testing.T) {
		rows, left, err := towerChecks(ctx, &ref, false, towerOptions{lib: ortLibrary(t), staged: "staged by the test", tmp: t.TempDir()}, 16)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1+len(towerVariants()) || len(left) != 0 {
			t.Fatalf("%d rows, left out %+v", len(rows), left)
		}
		if !*rows[0].Equal || !strings.Contains(rows[0].Tower.Staged, "staged by the test") {
			t.Errorf("CPU row: %+v", rows[0].Tower)
		}
		for _, r := range rows[1:] {
			if !strings.Contains(r.Error, errNoProvider.Error()) || r.Equal != nil || r.Tower.GPUFramesPS != nil {
				t.Errorf("%s (%s): error %q", r.Backend, r.Tower.Math, r.Error)
			}
		}
		if rows[1].Error != rows[3].Error {
			t.Errorf("the later variants were tried: %q, then %q", rows[1].Error, rows[3].Error)
		}
	})
	t.Run("another model", func(t *testing.T) {
		bad := ref
		bad.Checks = []RefCheck{ref.Checks[0]}
		other := *tr
		other.ModelSHA256 = strings.Repeat("0", 64)
		bad.Checks[0].Tower = &other
		rows, _, err := towerChecks(ctx, &bad, true, towerOptions{tmp: t.TempDir()}, 16)
		if err != nil {
			t.Fatal(err)
		}
		if r := rows[0]; !strings.Contains(r.Error, "differs from the reference's") || *r.Tower.ModelMatches || r.Equal != nil {
			t.Errorf("row %+v", r)
		}
	})
}

// ortLibrary is the CPU library the models tests use: $VIDSCREEN_ORT_LIB,
// else the repository's .cache/onnxruntime.
func ortLibrary(t *testing.T) string {
	if p := os.Getenv(models.LibraryEnv); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", "..", ".cache", "onnxruntime", "libonnxruntime.so"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BenchmarkTowerBuild draws the 88M-parameter tower and writes its folder,
// as each run of the check does.
func BenchmarkTowerBuild(b *testing.B) {
	cfg := towerConfig(seed + towerSeedOffset)
	for b.Loop() {
		tm, err := buildTower(cfg, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if err := tm.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(towerParams(cfg))*4/1e6, "MB")
}

// BenchmarkTowerCPU embeds the seeded frames' preprocessed images on
// ONNX Runtime's CPU, the reference's figure: frames/s.
func BenchmarkTowerCPU(b *testing.B) {
	ctx := context.Background()
	tm, err := buildTower(towerConfig(seed+towerSeedOffset), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer tm.Close()
	rt, err := models.NewRuntime(models.RuntimeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	it, err := tm.open(rt, gpu.CPUDevice())
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	p, err := tm.preprocessor()
	if err != nil {
		b.Fatal(err)
	}
	imgs, err := towerImages(ctx, p, towerFrames(seed, prepDistinct), prepDistinct)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := it.EmbedImages(ctx, imgs); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := it.EmbedImages(ctx, imgs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*imgs.N)/b.Elapsed().Seconds(), "frames/s")
}
