package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/blas"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// The offload check measures kernels.Offload's cut, DefaultMinWork, which
// was set from an estimate of a GPU's set-up per call: a ladder of the
// searches an audit hands Offload, from 2^22 to 2^32 multiply-adds as it
// counts them (rows x rows x 1024), each timed end to end on the CPU
// kernels and on the GPU's Backend (its upload, streams and tile buffers
// included, as the audit pays them on every call it sends), on the same
// machine. The crossing is the smallest rung from which the GPU is faster
// at that rung and every larger one: the cut to give --offload-min-work.
const (
	offloadMinSeconds = 0.1 // each side of a rung repeats its search for at least this long
	offloadMinReps    = 3
	offloadMaxReps    = 25
)

// offloadRows is the ladder: n = 64 ... 2048 rows of 1024 columns, n*n*1024
// multiply-adds = 2^22 ... 2^32.
var offloadRows = []int{64, 128, 256, 512, 1024, 2048}

// An offloadSearch is one kind of search the audit offloads: its name, and
// one run of it on the first n rows of x, returning its result's count and
// digest (as the join and top-k checks digest theirs).
type offloadSearch struct {
	name string
	run  func(ctx context.Context, j kernels.Joiner, s kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, error)
}

// offloadSearches are the self-join at the join check's tau (the copy and
// near-duplicate joins) and the top-k of every row among all (the k-NN,
// cross-store and retrieval searches), both rows x rows x cols to Offload.
func offloadSearches() []offloadSearch {
	return []offloadSearch{
		{"join", func(ctx context.Context, j kernels.Joiner, _ kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, error) {
			n, d, _, err := joinDigest(ctx, j, x, refTau)
			return n, d, err
		}},
		{"topk", func(ctx context.Context, _ kernels.Joiner, s kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, error) {
			nb, err := s.TopK(ctx, x, x, refK, kernels.Options{})
			if err != nil {
				return 0, "", err
			}
			n, d := neighboursDigest(nb)
			return n, d, nil
		}},
	}
}

// OffloadFigures are the offload check's own fields of a RefCheck and a
// CheckResult (embedded; absent for the other checks).
type OffloadFigures struct {
	DefaultMinWork int64 `json:"default_min_work"`
	// CPUKernels names the CPU side's BLAS and threads: the GPU bundle's
	// is gonum's pure Go (-tags noopenblas), slower than the OpenBLAS of
	// bin/vidscreen-cuda, so its crossing is a lower bound for an audit.
	CPUKernels string        `json:"cpu_kernels"`
	Rungs      []OffloadRung `json:"offload_rungs"`
	// Crossings has one entry per search; MeasuredMinWork is the larger
	// crossing, the one cut from which both searches are faster on the
	// GPU (null when either has none).
	Crossings       []OffloadCrossing `json:"offload_crossings,omitempty"`
	MeasuredMinWork *int64            `json:"measured_min_work"`
}

// An OffloadRung is one search at one size. In the reference, CPUSeconds
// is the build machine's; in a report it is the run's machine's, which
// the GPU's seconds are compared with, beside the reference's.
type OffloadRung struct {
	Search       string  `json:"search"`
	Rows         int     `json:"rows"`
	MultiplyAdds int64   `json:"multiply_adds"`
	Count        int64   `json:"count"`
	SHA256       string  `json:"sha256"`
	CPUSeconds   float64 `json:"cpu_seconds"`
	CPUReps      int     `json:"cpu_reps,omitempty"`
	// RefCPUSeconds and CPUEqual: the reference's time, and whether this
	// machine's CPU kernels gave the reference's result (reports only).
	RefCPUSeconds float64  `json:"reference_cpu_seconds,omitempty"`
	CPUEqual      *bool    `json:"cpu_equal,omitempty"`
	GPUSeconds    *float64 `json:"gpu_seconds"`
	GPUReps       *int     `json:"gpu_reps"`
	Equal         *bool    `json:"equal"`
	GPUFaster     *bool    `json:"gpu_faster"`
}

// An OffloadCrossing is one search's measured cut: the multiply-adds of
// the smallest rung from which the GPU is faster at every rung; null, with
// why, when no GPU ran or it is not faster even at the largest.
type OffloadCrossing struct {
	Search       string `json:"search"`
	MultiplyAdds *int64 `json:"multiply_adds"`
	Note         string `json:"note"`
}

// cpuKernels names the BLAS the CPU kernels' products run on here, and
// their threads.
func cpuKernels() string {
	return fmt.Sprintf("kernels/blas %s, %d threads", blas.Name, runtime.GOMAXPROCS(0))
}

func offloadWhat(rows []int) string {
	return fmt.Sprintf("self-join at tau %.2f and top-%d of n x %d against itself, n = %d ... %d, end to end per call", refTau, refK, dim, rows[0], rows[len(rows)-1])
}

// offloadData is the ladder's rows: the first n of one seeded matrix.
func offloadData(rows []int, seed uint64) *kernels.Matrix {
	return seeded(slices.Max(rows), dim, seed+3)
}

func prefix(x *kernels.Matrix, n int) *kernels.Matrix {
	return &kernels.Matrix{Rows: n, Cols: x.Cols, Data: x.Data[:n*x.Cols]}
}

// timeSearch runs s once for its result, then again until it has taken
// offloadMinSeconds over at least offloadMinReps runs (at most
// offloadMaxReps), and returns the result and the median run's seconds.
func timeSearch(ctx context.Context, s offloadSearch, j kernels.Joiner, ns kernels.NeighbourSearcher, x *kernels.Matrix) (int64, string, float64, int, error) {
	n, digest, err := s.run(ctx, j, ns, x)
	if err != nil {
		return 0, "", 0, 0, err
	}
	var secs []float64
	var total float64
	for len(secs) < offloadMaxReps && (len(secs) < offloadMinReps || total < offloadMinSeconds) {
		if err := ctx.Err(); err != nil {
			return 0, "", 0, 0, err
		}
		start := time.Now()
		if _, _, err := s.run(ctx, j, ns, x); err != nil {
			return 0, "", 0, 0, err
		}
		d := time.Since(start).Seconds()
		secs = append(secs, d)
		total += d
	}
	slices.Sort(secs)
	return n, digest, secs[len(secs)/2], len(secs), nil
}

// offloadReference runs the ladder on the CPU kernels: each rung's result
// and the build machine's seconds (one run: the report's CPU figure is
// measured where the GPU is).
func offloadReference(ctx context.Context, seed uint64, rows []int) (RefCheck, error) {
	x := offloadData(rows, seed)
	fig := &OffloadFigures{DefaultMinWork: kernels.DefaultMinWork, CPUKernels: cpuKernels()}
	for _, s := range offloadSearches() {
		for _, n := range rows {
			start := time.Now()
			cnt, dig, err := s.run(ctx, kernels.CPU{}, kernels.CPU{}, prefix(x, n))
			if err != nil {
				return RefCheck{}, fmt.Errorf("reference offload %s at %d rows: %w", s.name, n, err)
			}
			fig.Rungs = append(fig.Rungs, OffloadRung{Search: s.name, Rows: n, MultiplyAdds: int64(n) * int64(n) * dim,
				Count: cnt, SHA256: dig, CPUSeconds: time.Since(start).Seconds()})
		}
	}
	return RefCheck{Name: "offload", What: offloadWhat(rows), SHA256: digestMatrix(x)[:16], OffloadFigures: fig}, nil
}

// offloadChecks times the reference's ladder on this machine's CPU
// kernels and, where a device opened, on the first one's Backend, and
// finds each search's crossing. Without a device the row keeps the CPU's
// seconds and null GPU fields.
func offloadChecks(ctx context.Context, ref *Reference, configs []gpuConfig, devs []cuda.Device) (CheckResult, error) {
	rc, ok := ref.check("offload")
	if !ok || rc.OffloadFigures == nil || len(rc.Rungs) == 0 {
		return CheckResult{}, fmt.Errorf("reference has no check offload")
	}
	var rows []int
	for _, r := range rc.Rungs {
		if !slices.Contains(rows, r.Rows) {
			rows = append(rows, r.Rows)
		}
	}
	x := offloadData(rows, ref.Seed)
	if d := digestMatrix(x)[:16]; d != rc.SHA256 {
		return CheckResult{}, fmt.Errorf("the seeded offload data differs from the reference's: regenerate the reference with this binary")
	}
	var dev cuda.Device
	label := configs[0].label + " (or the first that opened)"
	for i, d := range devs {
		if d != nil {
			dev, label = d, configs[i].label
			break
		}
	}
	res := CheckResult{Name: "offload", What: rc.What, Backend: label,
		Ceiling: fmt.Sprintf("kernels.DefaultMinWork %d multiply-adds (2^28), an estimate", kernels.DefaultMinWork),
		Target:  "the measured crossing: give it to audit and select as --offload-min-work"}
	fig := &OffloadFigures{DefaultMinWork: kernels.DefaultMinWork, CPUKernels: cpuKernels()}
	res.OffloadFigures = fig
	var be *cuda.Backend
	if dev != nil {
		be = &cuda.Backend{Device: dev}
	}
	allEqual := true
	for _, s := range offloadSearches() {
		for _, want := range rc.Rungs {
			if want.Search != s.name {
				continue
			}
			sub := prefix(x, want.Rows)
			r := want
			r.RefCPUSeconds = want.CPUSeconds
			cnt, dig, secs, reps, err := timeSearch(ctx, s, kernels.CPU{}, kernels.CPU{}, sub)
			if err != nil {
				return CheckResult{}, fmt.Errorf("offload %s at %d rows on the CPU: %w", s.name, want.Rows, err)
			}
			cpuEq := cnt == want.Count && dig == want.SHA256
			r.CPUSeconds, r.CPUReps, r.CPUEqual = secs, reps, &cpuEq
			if be != nil {
				cnt, dig, gsecs, greps, err := timeSearch(ctx, s, be, be, sub)
				if err != nil {
					res.Error = fmt.Sprintf("%s at %d rows: %v", s.name, want.Rows, err)
					fig.Rungs = append(fig.Rungs, r)
					return res, nil
				}
				eq := cnt == want.Count && dig == want.SHA256
				faster := gsecs < secs
				allEqual = allEqual && eq
				r.GPUSeconds, r.GPUReps, r.Equal, r.GPUFaster = &gsecs, &greps, &eq, &faster
			}
			fig.Rungs = append(fig.Rungs, r)
		}
	}
	if be != nil {
		res.Equal = &allEqual
		fig.Crossings, fig.MeasuredMinWork = crossings(fig.Rungs)
	}
	return res, nil
}

// crossings finds, per search of rungs (in ascending size), the smallest
// rung from which the GPU is faster at it and every larger one, and the
// larger of those: the one cut that serves every search (nil when one
// search has none).
func crossings(rungs []OffloadRung) ([]OffloadCrossing, *int64) {
	var out []OffloadCrossing
	var worst *int64
	none := false
	for _, s := range offloadSearches() {
		var ladder []OffloadRung
		for _, r := range rungs {
			if r.Search == s.name {
				ladder = append(ladder, r)
			}
		}
		c := OffloadCrossing{Search: s.name}
		from := len(ladder)
		for from > 0 && ladder[from-1].GPUFaster != nil && *ladder[from-1].GPUFaster {
			from--
		}
		switch {
		case len(ladder) == 0:
			continue
		case from == len(ladder):
			c.Note = fmt.Sprintf("the GPU is not faster at the largest rung (%d multiply-adds): the crossing lies above the ladder", ladder[len(ladder)-1].MultiplyAdds)
			none = true
		case from == 0:
			w := ladder[0].MultiplyAdds
			c.MultiplyAdds = &w
			c.Note = "the GPU is faster at every rung: the crossing lies at or below the smallest"
		default:
			w := ladder[from].MultiplyAdds
			c.MultiplyAdds = &w
			c.Note = fmt.Sprintf("the CPU is faster at %d multiply-adds, the GPU from %d on", ladder[from-1].MultiplyAdds, w)
		}
		if c.MultiplyAdds != nil && (worst == nil || *c.MultiplyAdds > *worst) {
			worst = c.MultiplyAdds
		}
		out = append(out, c)
	}
	if none {
		worst = nil
	}
	return out, worst
}
