package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// The seeded data: the shape of Video-Index's question embeddings (BGE,
// 1024 wide) with near-duplicates planted at two distances, one far above
// the join's tau and one around it, so the re-check band is exercised.
const (
	seed     = 20260523
	dim      = 1024
	refRows  = 20_000
	refTau   = 0.9
	refK     = 10
	refQuery = 2_000
)

// seeded returns n unit rows of d columns from seed: Gaussian rows, and
// every 50th row a near copy of an earlier one (cosine about 0.995), every
// 50th offset by 25 a looser copy (cosine about 0.9, either side of tau).
func seeded(n, d int, seed uint64) *kernels.Matrix {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	m := kernels.NewMatrix(n, d)
	for i := 0; i < n; i++ {
		row := m.Row(i)
		for k := range row {
			row[k] = float32(rng.NormFloat64())
		}
		var noise float64
		switch {
		case i > 0 && i%50 == 0:
			noise = 0.1
		case i > 25 && i%50 == 25:
			// 1/sqrt(1+r) = 0.9 at r = 0.2346: noise sqrt(r) = 0.4843.
			noise = 0.4843
		default:
			continue
		}
		src := m.Row(rng.IntN(i))
		for k := range row {
			row[k] = src[k] + float32(noise)*row[k]
		}
	}
	kernels.NormalizeRows(m)
	return m
}

func digestMatrix(m *kernels.Matrix) string {
	h := sha256.New()
	buf := make([]byte, 4*m.Cols)
	for i := 0; i < m.Rows; i++ {
		for k, v := range m.Row(i) {
			binary.LittleEndian.PutUint32(buf[4*k:], math.Float32bits(v))
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// joinDigest runs a join and returns its pair count and the SHA-256 of the
// pairs in emit order (I, J, Sim bits, little-endian), so order counts.
func joinDigest(ctx context.Context, j kernels.Joiner, a *kernels.Matrix, tau float32) (int64, string, float64, error) {
	h := sha256.New()
	var n int64
	var buf [12]byte
	start := time.Now()
	err := j.ThresholdJoin(ctx, a, nil, tau, kernels.Options{}, func(ps []kernels.Pair) error {
		for _, p := range ps {
			binary.LittleEndian.PutUint32(buf[0:], uint32(p.I))
			binary.LittleEndian.PutUint32(buf[4:], uint32(p.J))
			binary.LittleEndian.PutUint32(buf[8:], math.Float32bits(p.Sim))
			h.Write(buf[:])
		}
		n += int64(len(ps))
		return nil
	})
	return n, hex.EncodeToString(h.Sum(nil)), time.Since(start).Seconds(), err
}

func neighboursDigest(nb *kernels.Neighbours) (int64, string) {
	h := sha256.New()
	var buf [8]byte
	var n int64
	for i := range nb.Index {
		binary.LittleEndian.PutUint32(buf[0:], uint32(nb.Index[i]))
		binary.LittleEndian.PutUint32(buf[4:], math.Float32bits(nb.Sim[i]))
		h.Write(buf[:])
		if nb.Index[i] >= 0 {
			n++
		}
	}
	return n, hex.EncodeToString(h.Sum(nil))
}

// Reference is what the build machine computed with the CPU kernels.
type Reference struct {
	Seed       uint64     `json:"seed"`
	Rows       int        `json:"rows"`
	Dim        int        `json:"dim"`
	DataSHA256 string     `json:"data_sha256"`
	CPU        string     `json:"cpu"`
	Checks     []RefCheck `json:"checks"`
}

// A RefCheck is one CPU result: the count (pairs, or neighbours found), the
// digest, the time and the rate in GFLOP/s (2*d flops per product scored).
type RefCheck struct {
	Name    string  `json:"name"`
	What    string  `json:"what"`
	Count   int64   `json:"count"`
	SHA256  string  `json:"sha256"`
	Seconds float64 `json:"seconds"`
	GFLOPs  float64 `json:"gflop_per_s"`
	// Score is the Vendi checks' estimate (SHA256 then digests the data).
	Score float64 `json:"score,omitempty"`
	*PrepFigures
	*OffloadFigures
	Tower *TowerRef `json:"tower,omitempty"`
}

func (r *Reference) check(name string) (RefCheck, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return RefCheck{}, false
}

// searches are the checks both sides run, each against one Joiner and
// NeighbourSearcher.
type search struct {
	name, what string
	flops      float64
	run        func(ctx context.Context, j kernels.Joiner, s kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, float64, error)
}

func searches() []search {
	n := float64(refRows)
	return []search{
		{"join", fmt.Sprintf("self-join of %d x %d at tau %.2f", refRows, dim, refTau), n * (n - 1) / 2 * 2 * dim,
			func(ctx context.Context, j kernels.Joiner, _ kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, float64, error) {
				return joinDigest(ctx, j, x, refTau)
			}},
		{"topk", fmt.Sprintf("top-%d of the first %d rows among all %d", refK, refQuery, refRows), float64(refQuery) * n * 2 * dim,
			func(ctx context.Context, _ kernels.Joiner, s kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, float64, error) {
				q := &kernels.Matrix{Rows: refQuery, Cols: dim, Data: x.Data[:refQuery*dim]}
				start := time.Now()
				nb, err := s.TopK(ctx, q, x, refK, kernels.Options{})
				if err != nil {
					return 0, "", 0, err
				}
				c, d := neighboursDigest(nb)
				return c, d, time.Since(start).Seconds(), nil
			}},
		{"topk_earlier", fmt.Sprintf("top-%d among earlier rows, %d x %d", refK, refRows, dim), n * (n - 1) / 2 * 2 * dim,
			func(ctx context.Context, _ kernels.Joiner, s kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, float64, error) {
				start := time.Now()
				nb, err := s.TopKEarlier(ctx, x, refK, kernels.Options{})
				if err != nil {
					return 0, "", 0, err
				}
				c, d := neighboursDigest(nb)
				return c, d, time.Since(start).Seconds(), nil
			}},
	}
}

func cpuReference(ctx context.Context, tower towerOptions) (*Reference, error) {
	x := seeded(refRows, dim, seed)
	ref := &Reference{Seed: seed, Rows: refRows, Dim: dim, DataSHA256: digestMatrix(x),
		CPU: fmt.Sprintf("%s/%s, %d threads", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))}
	for _, s := range searches() {
		c, d, secs, err := s.run(ctx, kernels.CPU{}, kernels.CPU{}, x)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", s.name, err)
		}
		ref.Checks = append(ref.Checks, RefCheck{Name: s.name, What: s.what, Count: c, SHA256: d, Seconds: secs, GFLOPs: s.flops / secs / 1e9})
	}
	oc, err := offloadReference(ctx, seed, offloadRows)
	if err != nil {
		return nil, err
	}
	ref.Checks = append(ref.Checks, oc)
	vc, err := vendiReference(ctx, seed)
	if err != nil {
		return nil, err
	}
	ref.Checks = append(ref.Checks, vc)
	pc, err := prepReference(ctx, seed)
	if err != nil {
		return nil, err
	}
	ref.Checks = append(ref.Checks, pc...)
	nc, err := nv12Reference(ctx, seed)
	if err != nil {
		return nil, err
	}
	ref.Checks = append(ref.Checks, nc...)
	tc, err := towerReference(ctx, seed, tower)
	if err != nil {
		return nil, err
	}
	ref.Checks = append(ref.Checks, tc)
	return ref, nil
}

// Report is the device check's one JSON file. GPU fields are null when no
// GPU ran (the dry run, or a device that did not open: GPUNote says why).
type Report struct {
	DryRun    bool          `json:"dry_run"`
	Started   string        `json:"started"`
	Seconds   float64       `json:"seconds"`
	Device    *string       `json:"device"`
	GPUNote   string        `json:"gpu_note,omitempty"`
	DataMatch *bool         `json:"data_matches_reference"`
	Checks    []CheckResult `json:"checks"`
	LeftOut   []LeftOut     `json:"left_out"`
}

// A CheckResult is one check: the CPU reference beside the GPU's result.
type CheckResult struct {
	Name       string   `json:"name"`
	What       string   `json:"what"`
	Backend    string   `json:"backend"`
	CPUCount   int64    `json:"cpu_count"`
	CPUSHA256  string   `json:"cpu_sha256,omitempty"`
	CPUSeconds float64  `json:"cpu_seconds,omitempty"`
	CPUGFLOPs  float64  `json:"cpu_gflop_per_s,omitempty"`
	GPUCount   *int64   `json:"gpu_count"`
	GPUSHA256  *string  `json:"gpu_sha256"`
	Equal      *bool    `json:"equal"`
	GPUSeconds *float64 `json:"gpu_seconds"`
	GPUTFLOPs  *float64 `json:"gpu_tflop_per_s"`
	// The Vendi checks: the estimates and their relative difference
	// (Equal then means within 1e-4; for the rate, under its target).
	CPUScore float64  `json:"cpu_score,omitempty"`
	GPUScore *float64 `json:"gpu_score,omitempty"`
	RelDiff  *float64 `json:"rel_diff,omitempty"`
	// VendiTimes splits GPUSeconds (with the basis on the device, what
	// stays on the host takes 1.0 s with OpenBLAS, 1.9 s in pure Go, at
	// 60,000 on 2 shared cores here: BenchmarkBlockKrylov's rest-s).
	VendiTimes *vendiTimes `json:"gpu_vendi_seconds_split,omitempty"`
	// The rate join only: the device's part alone (every tile's product
	// and extraction on one worker, the matrix already resident), without
	// the upload, the row norms and the host's re-check that the
	// end-to-end figure includes.
	TileSeconds *float64 `json:"gpu_tile_seconds,omitempty"`
	TileTFLOPs  *float64 `json:"gpu_tile_tflop_per_s,omitempty"`
	Ceiling     string   `json:"ceiling,omitempty"`
	Target      string   `json:"target,omitempty"`
	Error       string   `json:"error,omitempty"`
	*PrepFigures
	*OffloadFigures
	Tower *TowerFigures `json:"tower,omitempty"`
}

// A LeftOut names a check the issue asks for that this report does not
// run, and why.
type LeftOut struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// H200 ceilings (the vendor's datasheet, as /work/.library/device/H200.md
// quotes it): plain FP32 about 67 TFLOP/s; dense BF16 about 990, dense
// TF32 about half that.
const (
	fp32Peak = 67.0
	tf32Peak = 495.0
	bf16Peak = 990.0
)

// gpuConfig is one way of opening the device: with cuBLAS or with the
// project's own tile GEMM (sgemm_nt, gemm_tf32_nt, gemm_bf16_nt), in one
// precision.
type gpuConfig struct {
	label    string
	noCUBLAS bool
	prec     cuda.Precision
	// joinOnly: the configuration differs from an earlier one only in the
	// join's tile GEMM, so the Vendi checks (whose products are fp32 on
	// every configuration) skip it.
	joinOnly bool
}

// gpuConfigs are the configurations every check is run on.
func gpuConfigs() []gpuConfig {
	return []gpuConfig{
		{label: "cuBLAS fp32"},
		{label: "own GEMM kernel fp32", noCUBLAS: true},
		{label: "cuBLAS tf32", prec: cuda.TF32},
		{label: "own mma kernel tf32", noCUBLAS: true, prec: cuda.TF32, joinOnly: true},
		{label: "cuBLAS bf16", prec: cuda.BF16, joinOnly: true},
		{label: "own mma kernel bf16", noCUBLAS: true, prec: cuda.BF16, joinOnly: true},
	}
}

func runChecks(ctx context.Context, ref *Reference, cpuOnly bool, rateRows, vendiRows int, tower towerOptions) (*Report, error) {
	start := time.Now()
	rep := &Report{DryRun: cpuOnly, Started: start.UTC().Format(time.RFC3339)}
	rep.LeftOut = []LeftOut{
		{"nvdec", "needs FFmpeg's libraries on the machine; not carried"},
	}
	x := seeded(ref.Rows, ref.Dim, ref.Seed)
	match := digestMatrix(x) == ref.DataSHA256
	rep.DataMatch = &match
	if !match {
		return nil, fmt.Errorf("the seeded data differs from the reference's (%s): regenerate the reference with this binary", ref.DataSHA256)
	}
	configs := gpuConfigs()
	var first cuda.Device
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	devs := make([]cuda.Device, len(configs))
	if !cpuOnly {
		for i, c := range configs {
			d, name, closeFn, err := openGPU(c)
			if err != nil {
				rep.GPUNote += fmt.Sprintf("%s: %v. ", c.label, err)
				continue
			}
			closers = append(closers, closeFn)
			devs[i] = d
			if first == nil {
				first = d
				rep.Device = &name
			}
		}
	} else {
		rep.GPUNote = "dry run: no GPU asked for"
	}
	for _, s := range searches() {
		rc, ok := ref.check(s.name)
		if !ok {
			return nil, fmt.Errorf("reference has no check %s", s.name)
		}
		for i, c := range configs {
			if s.name != "join" && i > 0 {
				continue // top-k runs on the first configuration only
			}
			res := CheckResult{Name: s.name, What: s.what, Backend: c.label, CPUCount: rc.Count, CPUSHA256: rc.SHA256,
				CPUSeconds: rc.Seconds, CPUGFLOPs: rc.GFLOPs, Ceiling: fmt.Sprintf("H200 %s peak ~%.0f TFLOP/s; CPU here %.3f TFLOP/s", precisionOf(c), peakOf(c), rc.GFLOPs/1e3)}
			if d := devs[i]; d != nil {
				be := &cuda.Backend{Device: d}
				cnt, dig, secs, err := s.run(ctx, be, be, x)
				if err != nil {
					res.Error = err.Error()
				} else {
					eq := cnt == rc.Count && dig == rc.SHA256
					tf := s.flops / secs / 1e12
					res.GPUCount, res.GPUSHA256, res.Equal, res.GPUSeconds, res.GPUTFLOPs = &cnt, &dig, &eq, &secs, &tf
				}
			}
			rep.Checks = append(rep.Checks, res)
		}
	}
	// The rate join: rateRows x 1024 against itself on every
	// configuration, whose pair sets must agree (each is exact); the CPU
	// figure is the reference join's rate here.
	rc, _ := ref.check("join")
	if rateRows > 0 {
		big := seeded(rateRows, dim, ref.Seed+1)
		n := float64(rateRows)
		flops := n * (n - 1) / 2 * 2 * dim
		var firstDigest *string
		for i, c := range configs {
			target := rateTarget(c)
			res := CheckResult{Name: "join_rate", What: fmt.Sprintf("self-join of %d x %d at tau %.2f", rateRows, dim, refTau), Backend: c.label,
				CPUGFLOPs: rc.GFLOPs, Ceiling: fmt.Sprintf("H200 %s peak ~%.0f TFLOP/s; CPU here %.3f TFLOP/s", precisionOf(c), peakOf(c), rc.GFLOPs/1e3), Target: target}
			if d := devs[i]; d != nil {
				cnt, dig, secs, err := joinDigest(ctx, &cuda.Backend{Device: d}, big, refTau)
				if err != nil {
					res.Error = err.Error()
				} else {
					tf := flops / secs / 1e12
					res.GPUCount, res.GPUSHA256, res.GPUSeconds, res.GPUTFLOPs = &cnt, &dig, &secs, &tf
					if firstDigest == nil {
						firstDigest = &dig
					}
					eq := dig == *firstDigest
					res.Equal = &eq
				}
				if secs, err := tilePass(ctx, d, big, refTau); err != nil {
					res.Error = strings.TrimSpace(res.Error + " tile pass: " + err.Error())
				} else {
					tf := flops / secs / 1e12
					res.TileSeconds, res.TileTFLOPs = &secs, &tf
				}
			}
			rep.Checks = append(rep.Checks, res)
		}
	}
	// Before the Vendi and preprocessing checks, the last of which changes
	// the primary context's flags: the ladder times the device's calls as
	// an audit makes them.
	oc, err := offloadChecks(ctx, ref, configs, devs)
	if err != nil {
		return nil, err
	}
	rep.Checks = append(rep.Checks, oc)
	vc, err := vendiChecks(ctx, ref, configs, devs, vendiRows)
	if err != nil {
		return nil, err
	}
	rep.Checks = append(rep.Checks, vc...)
	pc, err := prepChecks(ctx, ref, first, prepBatch)
	if err != nil {
		return nil, err
	}
	rep.Checks = append(rep.Checks, pc...)
	tc, tl, err := towerChecks(ctx, ref, cpuOnly, tower, towerBatch)
	if err != nil {
		return nil, err
	}
	rep.Checks, rep.LeftOut = append(rep.Checks, tc...), append(rep.LeftOut, tl...)
	nc, err := nv12Checks(ctx, ref, first, prepBatch)
	if err != nil {
		return nil, err
	}
	rep.Checks = append(rep.Checks, nc...)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// tilePass times the device side of a self-join of x at tau on one
// worker: each tile of the upper triangle computed and its candidates
// extracted, as Backend does, with the upload and the worker's buffers
// set up beforehand.
func tilePass(ctx context.Context, d cuda.Device, x *kernels.Matrix, tau float32) (float64, error) {
	r, err := d.Upload(x)
	if err != nil {
		return 0, err
	}
	defer r.Free()
	w, err := d.NewWorker()
	if err != nil {
		return 0, err
	}
	defer w.Close()
	na, maxB := kernels.RowNorms(x)
	band := 2 * d.Precision().Bound(x.Cols)
	tr, tc := d.TileShape()
	floors := make([]float32, tr)
	var cands []cuda.Candidate
	start := time.Now()
	for r0 := 0; r0 < x.Rows; r0 += tr {
		rows := min(tr, x.Rows-r0)
		for i := 0; i < rows; i++ {
			floors[i] = float32(float64(tau) - band*na[r0+i]*maxB)
		}
		for c0 := r0; c0 < x.Rows; c0 += tc {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t := cuda.Tile{A: r, B: r, R0: r0, Rows: rows, C0: c0, Cols: min(tc, x.Rows-c0), Mask: cuda.Upper}
			if err := w.Product(t); err != nil {
				return 0, err
			}
			if cands, err = w.Extract(floors[:rows], cands[:0]); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(start).Seconds(), nil
}

func precisionOf(c gpuConfig) string { return c.prec.String() }

func peakOf(c gpuConfig) float64 {
	switch c.prec {
	case cuda.TF32:
		return tf32Peak
	case cuda.BF16:
		return bf16Peak
	}
	return fp32Peak
}

// rateTarget is the figure for the rate join on c; the own
// kernels, the fallback where no cuBLAS loads, have none and are
// measured beside the chip's peak only.
func rateTarget(c gpuConfig) string {
	switch {
	case c.noCUBLAS:
		return ""
	case c.prec == cuda.TF32:
		return ">= 150 TFLOP/s with the re-check band"
	case c.prec == cuda.BF16:
		return "none set; beside the dense BF16 peak"
	}
	return ">= 33 TFLOP/s (half the fp32 peak)"
}
