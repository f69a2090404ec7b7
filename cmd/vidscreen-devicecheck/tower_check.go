package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// towerOptions say where ONNX Runtime is and what staged it.
type towerOptions struct {
	// lib is libonnxruntime.so; "" is models' own search (the reference
	// and the dry run: $VIDSCREEN_ORT_LIB, then .cache/onnxruntime).
	lib string
	// staged says what scripts/device-check.sh staged (the GPU run), or
	// why nothing is: with lib "" on a GPU run, the rows are skipped
	// with it as the reason.
	staged string
	// tmp holds the tower's folder ("" is the system's).
	tmp string
}

// TowerRef is the reference's image tower: the model built here, its
// CPU embeddings of the seeded frames and the CPU's rate.
type TowerRef struct {
	Shape        string  `json:"shape"`
	Params       int64   `json:"params"`
	GFLOPFrame   float64 `json:"gflop_per_frame"`
	ModelSeed    uint64  `json:"model_seed"`
	ModelSHA256  string  `json:"model_sha256"`
	BuildSeconds float64 `json:"build_seconds"`
	OpenSeconds  float64 `json:"open_seconds"`
	ORT          string  `json:"ort"`
	FramesSHA256 string  `json:"frames_sha256"`
	// CPUFramesPS is the seeded frames embedded once more after the
	// reference pass, CPUBatch of them in one run, on every thread here.
	CPUBatch    int     `json:"cpu_batch"`
	CPUFramesPS float64 `json:"cpu_frames_per_s"`
	// Closest is the nearest two distinct frames' embeddings come (the
	// largest cosines, the smallest largest difference).
	Closest    embDiff     `json:"closest_distinct_frames"`
	Embeddings [][]float32 `json:"embeddings"`
}

// TowerFigures are an image_tower row's own fields.
type TowerFigures struct {
	Shape string `json:"shape"`
	// Math is the arithmetic of the GEMMs and convolutions.
	Math string `json:"math"`
	// Staged says which ONNX Runtime ran the row and how it came to
	// the machine, or why none did.
	Staged       string   `json:"staged"`
	ModelMatches *bool    `json:"model_matches_reference"`
	BuildSeconds *float64 `json:"build_seconds"`
	OpenSeconds  *float64 `json:"open_seconds"`
	Batch        int      `json:"batch"`
	CPUBatch     int      `json:"cpu_batch"`
	CPUFramesPS  float64  `json:"cpu_frames_per_s"`
	// CPUHereFramesPS: the CPU row only, this machine's CPU.
	CPUHereFramesPS *float64  `json:"cpu_frames_per_s_this_machine,omitempty"`
	GPUFramesPS     *float64  `json:"gpu_frames_per_s"`
	Diff            *embDiff  `json:"diff"`
	Tolerance       tolerance `json:"tolerance"`
	Closest         embDiff   `json:"closest_distinct_frames"`
}

// A towerVariant is one way the GPU rows open the tower.
type towerVariant struct {
	backend, math string
	cuda          map[string]string // the CUDA provider's options
	frames        bool              // through DeviceFrames, else the Session
	tol           tolerance
	peak          float64 // TFLOP/s
}

const (
	cpuBackend = "ONNX Runtime CPU, Session (host tensor)"
	tf32Math   = "tf32 (use_tf32=1, the CUDA provider's default)"
)

func towerVariants() []towerVariant {
	return []towerVariant{
		{backend: "ONNX Runtime CUDA provider, Session (host tensor)", math: tf32Math, tol: tf32Tol, peak: tf32Peak},
		{backend: "ONNX Runtime CUDA provider, Session (host tensor)", math: "fp32 (use_tf32=0)", cuda: map[string]string{"use_tf32": "0"}, tol: fp32Tol, peak: fp32Peak},
		{backend: "DeviceFrames: preprocess.cu into the tensor on the device, read through an IoBinding", math: tf32Math, frames: true, tol: tf32Tol, peak: tf32Peak},
	}
}

func towerWhat(batch int) string {
	return fmt.Sprintf("%d seeded %dx%d frames (CLIP preprocessing to 224) embedded, held to the CPU's; the rate at batch %d", prepDistinct, prepW, prepH, batch)
}

// towerReference builds the tower here, embeds the seeded frames on the
// CPU and times a second pass.
func towerReference(ctx context.Context, seed uint64, o towerOptions) (RefCheck, error) {
	fail := func(err error) (RefCheck, error) {
		return RefCheck{}, fmt.Errorf("reference image_tower: %w", err)
	}
	cfg := towerConfig(seed + towerSeedOffset)
	tm, err := buildTower(cfg, o.tmp)
	if err != nil {
		return fail(err)
	}
	defer tm.Close()
	rt, err := models.NewRuntime(models.RuntimeOptions{Library: o.lib})
	if err != nil {
		return fail(err)
	}
	frames := towerFrames(seed, prepDistinct)
	e, secs, open, err := cpuTowerPass(ctx, rt, tm, frames)
	if err != nil {
		return fail(err)
	}
	fps := float64(len(frames)) / secs
	return RefCheck{Name: "image_tower", What: towerWhat(towerBatch), Count: int64(len(e)), SHA256: digestRows(e), Seconds: secs, GFLOPs: fps * towerFLOPs(cfg) / 1e9,
		Tower: &TowerRef{Shape: towerShape(cfg), Params: towerParams(cfg), GFLOPFrame: towerFLOPs(cfg) / 1e9, ModelSeed: cfg.Seed,
			ModelSHA256: tm.sha256, BuildSeconds: tm.seconds, OpenSeconds: open, ORT: "ONNX Runtime " + rt.Version(),
			FramesSHA256: digestFrames(frames), CPUBatch: len(frames), CPUFramesPS: fps,
			Closest: closestFrames(e), Embeddings: e}}, nil
}

// cpuTowerPass opens tm on rt's CPU and embeds frames twice: the first
// pass's embeddings, the second's seconds, and the open's.
func cpuTowerPass(ctx context.Context, rt *models.Runtime, tm *towerModel, frames []imageprep.Frame) (_ [][]float32, secs, open float64, err error) {
	p, err := tm.preprocessor()
	if err != nil {
		return nil, 0, 0, err
	}
	imgs, err := towerImages(ctx, p, frames, len(frames))
	if err != nil {
		return nil, 0, 0, err
	}
	start := time.Now()
	it, err := tm.open(rt, gpu.CPUDevice())
	if err != nil {
		return nil, 0, 0, err
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	open = time.Since(start).Seconds()
	e, err := it.EmbedImages(ctx, imgs)
	if err != nil {
		return nil, 0, 0, err
	}
	start = time.Now()
	if _, err := it.EmbedImages(ctx, imgs); err != nil {
		return nil, 0, 0, err
	}
	return e, time.Since(start).Seconds(), open, nil
}

func digestRows(rows [][]float32) string {
	var all []float32
	for _, r := range rows {
		all = append(all, r...)
	}
	return digestFloats(all)
}

// towerChecks runs the image_tower rows: the CPU's (on this machine, in
// every run) and, unless cpuOnly, the GPU's in each towerVariant. Where
// no ONNX Runtime is staged on a GPU run the rows say why and a LeftOut
// names it; failures are the rows' errors.
func towerChecks(ctx context.Context, ref *Reference, cpuOnly bool, o towerOptions, batch int) ([]CheckResult, []LeftOut, error) {
	rc, ok := ref.check("image_tower")
	if !ok || rc.Tower == nil {
		return nil, nil, fmt.Errorf("reference has no check image_tower: regenerate the reference with this binary")
	}
	tr := rc.Tower
	row := func(backend, math string, tol tolerance, peak float64) CheckResult {
		ceiling := fmt.Sprintf("CPU here (%s, %s) %.1f frames/s at batch %d", tr.ORT, ref.CPU, tr.CPUFramesPS, tr.CPUBatch)
		if peak > 0 {
			ceiling = fmt.Sprintf("H200 %s peak ~%.0f TFLOP/s: ~%.0f frames/s at %.2f GFLOP a frame; %s", mathName(math), peak, peak*1e3/tr.GFLOPFrame, tr.GFLOPFrame, ceiling)
		}
		return CheckResult{Name: "image_tower", What: towerWhat(batch), Backend: backend, CPUCount: rc.Count, CPUSHA256: rc.SHA256,
			CPUSeconds: rc.Seconds, CPUGFLOPs: rc.GFLOPs, Ceiling: ceiling, Target: fmt.Sprintf(">= %.0f frames/s at batch %d", towerTarget, towerBatch),
			Tower: &TowerFigures{Shape: tr.Shape, Math: math, Staged: o.staged, Batch: batch, CPUBatch: tr.CPUBatch,
				CPUFramesPS: tr.CPUFramesPS, Tolerance: tol, Closest: tr.Closest}}
	}
	cpu := row(cpuBackend, "fp32", fp32Tol, 0)
	cpu.Target = ""
	out := []CheckResult{cpu}
	variants := towerVariants()
	for _, v := range variants {
		out = append(out, row(v.backend, v.math, v.tol, v.peak))
	}
	if !cpuOnly && o.lib == "" {
		for i := range out {
			out[i].Error = "skipped: " + o.staged
		}
		return out, []LeftOut{{"image_tower", o.staged}}, nil
	}
	frames := towerFrames(ref.Seed, prepDistinct)
	if d := digestFrames(frames); d != tr.FramesSHA256 {
		return nil, nil, fmt.Errorf("the tower's seeded frames differ from the reference's (%s): regenerate the reference with this binary", tr.FramesSHA256)
	}
	tm, err := buildTower(towerConfig(tr.ModelSeed), o.tmp)
	if err != nil {
		return failRows(out, err), nil, nil
	}
	defer tm.Close()
	match := tm.sha256 == tr.ModelSHA256
	for i := range out {
		out[i].Tower.ModelMatches, out[i].Tower.BuildSeconds = &match, &tm.seconds
	}
	if !match {
		return failRows(out, fmt.Errorf("the tower built here (%s) differs from the reference's (%s): regenerate the reference with this binary", tm.sha256, tr.ModelSHA256)), nil, nil
	}
	mean := meanRow(tr.Embeddings)
	rt, err := models.NewRuntime(models.RuntimeOptions{Library: o.lib})
	if err != nil {
		return failRows(out, err), nil, nil
	}
	how := o.staged
	switch {
	case cpuOnly:
		how = "nothing staged (dry run)"
	case how == "":
		how = "named by --ort-lib, not staged by device-check.sh"
	}
	for i := range out {
		out[i].Tower.Staged = fmt.Sprintf("ONNX Runtime %s from %s; %s", rt.Version(), rt.Library(), how)
		if cpuOnly && i > 0 {
			out[i].Tower.Staged = "dry run: no GPU asked for"
		}
	}
	cpuRow(ctx, rt, tm, frames, tr, mean, &out[0])
	if cpuOnly {
		return out, nil, nil
	}
	p, err := tm.preprocessor()
	if err != nil {
		return failRows(out[1:], err), nil, nil
	}
	seeded, err := towerImages(ctx, p, frames, len(frames))
	if err != nil {
		return failRows(out[1:], err), nil, nil
	}
	rate, err := towerImages(ctx, p, frames, batch)
	if err != nil {
		return failRows(out[1:], err), nil, nil
	}
	rateFrames := make([]imageprep.Frame, batch)
	for i := range rateFrames {
		rateFrames[i] = frames[i%len(frames)]
	}
	in := towerInputs{seeded: seeded, rate: rate, frames: frames, rateFrames: rateFrames}
	var noProvider error
	for i, v := range variants {
		res := &out[i+1]
		if noProvider != nil {
			res.Error = noProvider.Error()
			continue
		}
		if err := gpuTowerRow(ctx, o.lib, tm, v, in, tr, mean, res); err != nil {
			res.Error = err.Error()
			if errors.Is(err, errNoProvider) {
				noProvider = err
			}
		}
	}
	return out, nil, nil
}

func mathName(m string) string {
	if m == tf32Math {
		return "dense TF32"
	}
	return "FP32"
}

func failRows(rows []CheckResult, err error) []CheckResult {
	for i := range rows {
		rows[i].Error = err.Error()
	}
	return rows
}

// cpuRow fills the CPU row: this machine's CPU embeddings against the
// reference's and its rate.
func cpuRow(ctx context.Context, rt *models.Runtime, tm *towerModel, frames []imageprep.Frame, tr *TowerRef, mean []float64, res *CheckResult) {
	e, secs, open, err := cpuTowerPass(ctx, rt, tm, frames)
	if err != nil {
		res.Error = err.Error()
		return
	}
	d, err := compareEmbeddings(e, tr.Embeddings, mean)
	if err != nil {
		res.Error = err.Error()
		return
	}
	fps := float64(len(frames)) / secs
	eq := res.Tower.Tolerance.within(d)
	res.Equal, res.Tower.Diff, res.Tower.OpenSeconds, res.Tower.CPUHereFramesPS = &eq, &d, &open, &fps
}

// towerInputs are the GPU rows' inputs: the seeded frames, preprocessed
// and not, and the rate's batch of each (the seeded ones repeated).
type towerInputs struct {
	seeded, rate       models.ImageBatch
	frames, rateFrames []imageprep.Frame
}

// errNoProvider marks a CUDA provider that did not open: the next
// variants would fail alike, so they are not tried.
var errNoProvider = errors.New("the CUDA provider did not open")

// gpuTowerRow opens tm on cuda:0 as v says, embeds the seeded frames
// against the reference and measures the rate at the rate batch:
// one batch to warm up (the provider's arena, cuDNN's algorithm search),
// then batches for at least prepMinSeconds and prepMinBatches.
func gpuTowerRow(ctx context.Context, lib string, tm *towerModel, v towerVariant, in towerInputs, tr *TowerRef, mean []float64, res *CheckResult) (err error) {
	rt, err := models.NewRuntime(models.RuntimeOptions{Library: lib, Device: gpu.Spec{CUDA: true, Indices: []int{0}}, CUDAProviderOptions: v.cuda, Log: os.Stderr})
	if err != nil {
		return err
	}
	dev := rt.Devices()[0]
	start := time.Now()
	it, err := tm.open(rt, dev)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	if f := rt.CUDAFailure(); f != nil {
		return fmt.Errorf("%w on cuda:0: %v", errNoProvider, f)
	}
	seeded := func() ([][]float32, error) { return it.EmbedImages(ctx, in.seeded) }
	batch := func() error { _, err := it.EmbedImages(ctx, in.rate); return err }
	if v.frames {
		df := it.OpenDeviceFrames(rt, dev)
		defer func() { err = errors.Join(err, df.Close()) }()
		if !df.OnDevice() {
			return fmt.Errorf("the GPU frame path did not open: %w", df.Fallback())
		}
		seeded = func() ([][]float32, error) { return df.EmbedFrames(ctx, in.frames) }
		batch = func() error { _, err := df.EmbedFrames(ctx, in.rateFrames); return err }
	}
	open := time.Since(start).Seconds()
	res.Tower.OpenSeconds = &open
	e, err := seeded()
	if err != nil {
		return err
	}
	d, err := compareEmbeddings(e, tr.Embeddings, mean)
	if err != nil {
		return err
	}
	eq := v.tol.within(d)
	n := int64(len(e))
	res.GPUCount, res.Equal, res.Tower.Diff = &n, &eq, &d
	if err := batch(); err != nil {
		return fmt.Errorf("warm-up batch: %w", err)
	}
	runs := 0
	start = time.Now()
	for runs < prepMinBatches || time.Since(start).Seconds() < prepMinSeconds {
		if err := batch(); err != nil {
			return err
		}
		runs++
	}
	secs := time.Since(start).Seconds()
	fps := float64(runs*res.Tower.Batch) / secs
	tf := fps * tr.GFLOPFrame / 1e3
	res.GPUSeconds, res.Tower.GPUFramesPS, res.GPUTFLOPs = &secs, &fps, &tf
	return nil
}
