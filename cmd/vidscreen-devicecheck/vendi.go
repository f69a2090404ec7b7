package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// The Vendi checks use the widths of Video-Index's joint kernel: SigLIP
// frame means (1152) and BGE questions (1024). The reference size is the
// issue's n = 8,192, which the CPU here estimates in seconds; the rate size
// is the pool's 60,000, GPU only.
const (
	vendiDV       = 1152
	vendiDT       = 1024
	vendiRefRows  = 8192
	vendiRateRows = 60_000
	vendiSeed     = 11 // seeds the estimate's probes
	vendiTol      = 1e-4
	vendiTarget   = 5.0 // seconds at 60,000 x (1152 x 1024)
)

// coneRows is kernels.ConeRows drawn from seed's stream 0xc0e: embedding-
// like rows whose kernel has the spectrum the estimator meets in practice.
func coneRows(n, d, nc int, seed uint64) *kernels.Matrix {
	return kernels.ConeRows(rand.New(rand.NewPCG(seed, 0xc0e)), n, d, nc)
}

// vendiData is the joint kernel's two matrices for n items.
func vendiData(n int, seed uint64) (v, t *kernels.Matrix) {
	return coneRows(n, vendiDV, 200, seed+2), coneRows(n, vendiDT, 300, seed+3)
}

// vendiFlops is the float32 work of one estimate: forming K once (two
// Gram products over all n^2 entries) and the estimate's products with K
// (16 blocks of 32 columns).
func vendiFlops(n int) float64 {
	nn := float64(n) * float64(n)
	return 2*nn*(vendiDV+vendiDT) + 16*2*nn*32
}

// cpuVendi is the reference: the estimate through the CPU's formed kernel.
func cpuVendi(ctx context.Context, v, t *kernels.Matrix) (kernels.Vendi, float64, error) {
	start := time.Now()
	op, err := kernels.FormJointKernel(ctx, v, t, nil, kernels.Options{})
	if err != nil {
		return kernels.Vendi{}, 0, err
	}
	res, err := kernels.VendiEstimate(ctx, op, 1, kernels.SLQConfig{Seed: vendiSeed})
	return res, time.Since(start).Seconds(), err
}

// vendiTimes splits a device estimate's seconds: uploading V and T and
// forming K's resident panels, the estimate's products with K (device
// work, host conversions and copies), the block Lanczos basis's products
// on the device (Gram-Schmidt, and each block's Gram matrix and W U, with
// the blocks' copies each way), and the rest on the host: the 32 x 32
// eigenproblems, T's eigenvalues and the probes.
// BasisNote is the device's line when the basis stayed on the host (its
// products then count in Host).
type vendiTimes struct {
	Form      float64 `json:"form"`
	Products  float64 `json:"products"`
	Basis     float64 `json:"basis"`
	Host      float64 `json:"host"`
	BasisNote string  `json:"basis_note,omitempty"`
}

// timedOperator times the products of the operator it wraps, and those
// of the basis it offers.
type timedOperator struct {
	*cuda.JointKernel
	secs, basisSecs float64
}

func (o *timedOperator) Apply(ctx context.Context, x []float64, cols int, y []float64) error {
	start := time.Now()
	err := o.JointKernel.Apply(ctx, x, cols, y)
	o.secs += time.Since(start).Seconds()
	return err
}

func (o *timedOperator) NewKrylovBasis(ctx context.Context, cols, block int) (kernels.KrylovBasis, error) {
	start := time.Now()
	b, err := o.JointKernel.NewKrylovBasis(ctx, cols, block)
	o.basisSecs += time.Since(start).Seconds()
	if b == nil || err != nil {
		return b, err
	}
	return &timedBasis{KrylovBasis: b, secs: &o.basisSecs}, nil
}

// timedBasis adds the seconds of every call to the basis it wraps to secs.
type timedBasis struct {
	kernels.KrylovBasis
	secs *float64
}

func (b *timedBasis) time(start time.Time) { *b.secs += time.Since(start).Seconds() }

func (b *timedBasis) Set(ctx context.Context, m, r int, x []float64) error {
	defer b.time(time.Now())
	return b.KrylovBasis.Set(ctx, m, r, x)
}

func (b *timedBasis) Project(ctx context.Context, m, r int, w, h []float64) error {
	defer b.time(time.Now())
	return b.KrylovBasis.Project(ctx, m, r, w, h)
}

func (b *timedBasis) Coords(ctx context.Context, m, c int, x, z []float64) error {
	defer b.time(time.Now())
	return b.KrylovBasis.Coords(ctx, m, c, x, z)
}

func (b *timedBasis) Gram(ctx context.Context, r int, x, g []float64) error {
	defer b.time(time.Now())
	return b.KrylovBasis.Gram(ctx, r, x, g)
}

func (b *timedBasis) Combine(ctx context.Context, r, k int, x, u, y []float64) error {
	defer b.time(time.Now())
	return b.KrylovBasis.Combine(ctx, r, k, x, u, y)
}

func (b *timedBasis) Close() error {
	defer b.time(time.Now())
	return b.KrylovBasis.Close()
}

// deviceVendi is the same estimate with K formed and multiplied on dev,
// and the block Lanczos basis held there; kernelBytes < 0 forms every
// tile again per product.
func deviceVendi(ctx context.Context, dev cuda.GramDevice, v, t *kernels.Matrix, kernelBytes int64) (kernels.Vendi, float64, vendiTimes, error) {
	start := time.Now()
	var note strings.Builder
	k, err := cuda.NewJointKernel(ctx, dev, v, t, nil, cuda.JointKernelOptions{KernelBytes: kernelBytes, Log: &note})
	if err != nil {
		return kernels.Vendi{}, 0, vendiTimes{}, err
	}
	defer k.Close()
	formed := time.Now()
	op := &timedOperator{JointKernel: k}
	res, err := kernels.VendiEstimate(ctx, op, 1, kernels.SLQConfig{Seed: vendiSeed})
	total := time.Since(start).Seconds()
	form := formed.Sub(start).Seconds()
	return res, total, vendiTimes{Form: form, Products: op.secs, Basis: op.basisSecs, Host: total - form - op.secs - op.basisSecs,
		BasisNote: strings.TrimSpace(note.String())}, err
}

// vendiReference runs the CPU estimate on the reference data.
func vendiReference(ctx context.Context, seed uint64) (RefCheck, error) {
	v, t := vendiData(vendiRefRows, seed)
	res, secs, err := cpuVendi(ctx, v, t)
	if err != nil {
		return RefCheck{}, fmt.Errorf("reference vendi: %w", err)
	}
	return RefCheck{Name: "vendi", What: vendiWhat(vendiRefRows), SHA256: digestMatrix(v) + digestMatrix(t)[:16],
		Score: res.Score, Seconds: secs, GFLOPs: vendiFlops(vendiRefRows) / secs / 1e9}, nil
}

func vendiWhat(n int) string {
	return fmt.Sprintf("Vendi estimate (block Lanczos SLQ, 32 probes x 16 steps) of the joint kernel of %d x (%d x %d)", n, vendiDV, vendiDT)
}

// vendiChecks holds the device's estimates to the reference: on every
// configuration with K resident, on the first also with K formed per
// product; then the rate at rateRows (GPU only; its score is recorded).
func vendiChecks(ctx context.Context, ref *Reference, configs []gpuConfig, devs []cuda.Device, rateRows int) ([]CheckResult, error) {
	rc, ok := ref.check("vendi")
	if !ok {
		return nil, fmt.Errorf("reference has no check vendi")
	}
	v, t := vendiData(vendiRefRows, ref.Seed)
	if d := digestMatrix(v) + digestMatrix(t)[:16]; d != rc.SHA256 {
		return nil, fmt.Errorf("the seeded Vendi data differs from the reference's: regenerate the reference with this binary")
	}
	ceiling := fmt.Sprintf("CPU here %.1f s (%.0f GFLOP/s)", rc.Seconds, rc.GFLOPs)
	var out []CheckResult
	var first cuda.GramDevice
	for i, c := range configs {
		if c.joinOnly {
			continue
		}
		modes := []int64{0}
		if i == 0 {
			modes = append(modes, -1)
		}
		for _, kb := range modes {
			label := c.label + ", K resident"
			if kb < 0 {
				label = c.label + ", K formed per product"
			}
			res := CheckResult{Name: "vendi", What: rc.What, Backend: label, CPUScore: rc.Score, CPUSeconds: rc.Seconds, CPUGFLOPs: rc.GFLOPs,
				Ceiling: ceiling, Target: fmt.Sprintf("within %g relative of the CPU's", vendiTol)}
			if g, ok := devs[i].(cuda.GramDevice); ok && g != nil {
				if first == nil {
					first = g
				}
				est, secs, times, err := deviceVendi(ctx, g, v, t, kb)
				if err != nil {
					res.Error = err.Error()
				} else {
					rel := math.Abs(est.Score-rc.Score) / rc.Score
					eq := rel <= vendiTol
					tf := vendiFlops(vendiRefRows) / secs / 1e12
					res.GPUScore, res.RelDiff, res.Equal, res.GPUSeconds, res.GPUTFLOPs = &est.Score, &rel, &eq, &secs, &tf
					res.VendiTimes = &times
				}
			}
			out = append(out, res)
		}
	}
	if rateRows <= 0 {
		return out, nil
	}
	// The CPU figure beside the rate: the reference's seconds scaled by
	// n^2 (both the formation and the products are quadratic in n).
	scale := float64(rateRows) * float64(rateRows) / (vendiRefRows * vendiRefRows)
	res := CheckResult{Name: "vendi_rate", What: vendiWhat(rateRows), Backend: configs[0].label + " (or the first that opened)",
		Ceiling: fmt.Sprintf("CPU here ~%.0f s (the reference's %.1f s scaled by n^2)", rc.Seconds*scale, rc.Seconds),
		Target:  fmt.Sprintf("under %g s", vendiTarget)}
	if first != nil {
		bv, bt := vendiData(rateRows, ref.Seed+1)
		est, secs, times, err := deviceVendi(ctx, first, bv, bt, 0)
		if err != nil {
			res.Error = err.Error()
		} else {
			tf := vendiFlops(rateRows) / secs / 1e12
			met := secs < vendiTarget
			res.GPUScore, res.GPUSeconds, res.GPUTFLOPs, res.Equal = &est.Score, &secs, &tf, &met
			res.VendiTimes = &times
		}
	}
	return append(out, res), nil
}
