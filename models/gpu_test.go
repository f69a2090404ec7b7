package models

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/letters"
)

// TestGPUMatchesCPU runs every role on the CPU and on a CUDA device with the
// same inputs, compares the outputs and logs the throughput of both. It
// runs only when VIDSCREEN_GPU_CHECK names a device (cuda:0, ...), as
// bench/models_gpu_check.sh does on a GPU machine; a CUDA provider that does
// not load is then a failure, not a fallback.
func TestGPUMatchesCPU(t *testing.T) {
	dev := os.Getenv("VIDSCREEN_GPU_CHECK")
	if dev == "" {
		t.Skip("set VIDSCREEN_GPU_CHECK=cuda:0 on a GPU machine (bench/models_gpu_check.sh)")
	}
	spec, err := gpu.ParseSpec(dev)
	if err != nil || !spec.CUDA {
		t.Fatalf("VIDSCREEN_GPU_CHECK=%q: want cuda:N (%v)", dev, err)
	}
	_, dir := tinyModels(t)
	rt, err := NewRuntime(RuntimeOptions{Device: spec, Log: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cpu := runRoles(t, ctx, rt, m, gpu.CPUDevice())
	if f := rt.CUDAFailure(); f != nil {
		t.Fatalf("CUDA did not load: %v", f)
	}
	onGPU := runRoles(t, ctx, rt, m, gpu.Device{Kind: gpu.CUDA, Index: spec.Ordinals()[0]})
	if f := rt.CUDAFailure(); f != nil {
		t.Fatalf("CUDA did not load: %v", f)
	}
	for _, r := range cpu {
		g := onGPU[r.name]
		if r.tol < 0 {
			// Token ids: greedy decoding may take another branch where two
			// logits nearly tie, so count captions, not values.
			same, n := sameCaptions(r.values, g.values)
			t.Logf("%-22s cpu %9.1f %s  %s %9.1f %s  %d of %d captions identical", r.name, r.rate, r.unit, dev, g.rate, g.unit, same, n)
			if 4*same < 3*n {
				t.Errorf("%s: only %d of %d captions identical on cpu and %s", r.name, same, n, dev)
			}
			continue
		}
		if len(g.values) != len(r.values) {
			t.Errorf("%s: %d values on cpu, %d on %s", r.name, len(r.values), len(g.values), dev)
			continue
		}
		worst := 0.0
		for i := range r.values {
			worst = math.Max(worst, math.Abs(r.values[i]-g.values[i]))
		}
		t.Logf("%-22s cpu %9.1f %s  %s %9.1f %s  max |cpu-gpu| %.2g", r.name, r.rate, r.unit, dev, g.rate, g.unit, worst)
		// CUDA may use TF32 matrix products (ONNX Runtime's default on
		// Ampere and later): about 1e-3 relative.
		if !(worst <= r.tol) {
			t.Errorf("%s: cpu and %s differ by %.3g > %.3g", r.name, dev, worst, r.tol)
		}
	}
}

// roleResult is one role's outputs (flattened) and throughput on a device.
type roleResult struct {
	name   string
	values []float64
	rate   float64
	unit   string
	tol    float64
}

func runRoles(t *testing.T, ctx context.Context, rt *Runtime, m *Manifest, dev gpu.Device) map[string]roleResult {
	t.Helper()
	out := map[string]roleResult{}
	timeIt := func(name, unit string, items int, tol float64, f func() ([]float64, error)) {
		vals, err := f() // warm-up, and the values compared
		if err != nil {
			t.Fatalf("%s on %s: %v", name, dev.ID(), err)
		}
		const reps = 5
		start := time.Now()
		for range reps {
			if _, err := f(); err != nil {
				t.Fatalf("%s on %s: %v", name, dev.ID(), err)
			}
		}
		rate := float64(reps*items) / time.Since(start).Seconds()
		out[name] = roleResult{name: name, values: vals, rate: rate, unit: unit, tol: tol}
	}
	flat := func(rows [][]float32) []float64 {
		var v []float64
		for _, r := range rows {
			for _, x := range r {
				v = append(v, float64(x))
			}
		}
		return v
	}
	flat64 := func(rows [][]float64) []float64 {
		var v []float64
		for _, r := range rows {
			v = append(v, r...)
		}
		return v
	}
	for _, role := range []Role{RoleTextEmbed, RoleDupConfirm} {
		e, err := rt.OpenTextEncoder(m, role, dev)
		if err != nil {
			t.Fatal(err)
		}
		texts := make([]string, 256)
		for i := range texts {
			texts[i] = questions[i%len(questions)] + fmt.Sprint(" item ", i)
		}
		timeIt(string(role), "texts/s", len(texts), 5e-3, func() ([]float64, error) {
			v, err := e.Embed(ctx, texts)
			return flat(v), err
		})
		e.Close()
	}
	it, err := rt.OpenImageText(m, dev)
	if err != nil {
		t.Fatal(err)
	}
	imgs := randomImages(8, 128, 3, 32)
	timeIt("image_text images", "images/s", imgs.N, 5e-3, func() ([]float64, error) {
		v, err := it.EmbedImages(ctx, imgs)
		return flat(v), err
	})
	timeIt("image_text texts", "texts/s", len(questions), 5e-3, func() ([]float64, error) {
		v, err := it.EmbedTexts(ctx, questions)
		return flat(v), err
	})
	it.Close()
	ls, err := rt.OpenLetterScorer(m, dev)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []letters.Prompt
	for i := range 64 {
		prompts = append(prompts, letters.Prompt{Text: "Question: " + questions[i%len(questions)] + fmt.Sprint(" (", i, ") A. yes B. no C. maybe D. never Answer:"), Options: 4})
	}
	timeIt("lm_reader", "prompts/s", len(prompts), 2e-2, func() ([]float64, error) {
		v, err := ls.Score(ctx, prompts)
		return flat64(v), err
	})
	ls.Close()
	c, err := rt.OpenCaptioner(m, dev)
	if err != nil {
		t.Fatal(err)
	}
	capImgs := randomImages(9, 32, 3, 32)
	timeIt("captioner", "captions/s", capImgs.N, -1, func() ([]float64, error) {
		caps, err := c.Caption(ctx, capImgs)
		var v []float64
		for _, cp := range caps {
			for _, id := range cp.IDs {
				v = append(v, float64(id))
			}
			v = append(v, -1)
		}
		return v, err
	})
	c.Close()
	vr, err := rt.OpenVLMReader(m, dev)
	if err != nil {
		t.Fatal(err)
	}
	frames := randomImages(10, 32, 3, 32)
	var vps []VLMPrompt
	for i := range 16 {
		vps = append(vps, VLMPrompt{Text: "<image><image> Question: " + questions[i%len(questions)] + " A. yes B. no Answer:", Images: frames.slice(2*i, 2*i+2), Options: 2})
	}
	timeIt("vlm_reader", "prompts/s", len(vps), 2e-2, func() ([]float64, error) {
		v, err := vr.Score(ctx, vps)
		return flat64(v), err
	})
	vr.Close()
	return out
}

// sameCaptions counts equal captions in two -1-separated id lists.
func sameCaptions(a, b []float64) (same, n int) {
	split := func(v []float64) [][]float64 {
		var out [][]float64
		var cur []float64
		for _, x := range v {
			if x == -1 {
				out, cur = append(out, cur), nil
				continue
			}
			cur = append(cur, x)
		}
		return out
	}
	ca, cb := split(a), split(b)
	for i := range ca {
		if i < len(cb) && slices.Equal(ca[i], cb[i]) {
			same++
		}
	}
	return same, len(ca)
}
