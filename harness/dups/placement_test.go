package dups_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// countingJoiner counts the joins it is handed, so that a test knows they
// reached the backend.
type countingJoiner struct {
	j     kernels.Joiner
	calls atomic.Int64
}

func (c *countingJoiner) ThresholdJoin(ctx context.Context, a, b *kernels.Matrix, tau float32, opt kernels.Options, emit func([]kernels.Pair) error) error {
	c.calls.Add(1)
	return c.j.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

// noisyUnits returns n unit rows of width d, each a random centre of a
// few (the same for every seed) plus noise of scale sd.
func noisyUnits(r *rand.Rand, centres [][]float32, n int, sd float32) *kernels.Matrix {
	m := kernels.NewMatrix(n, len(centres[0]))
	for i := range n {
		c := centres[r.IntN(len(centres))]
		for k := range m.Row(i) {
			m.Row(i)[k] = c[k] + sd*float32(r.NormFloat64())
		}
	}
	kernels.NormalizeRows(m)
	return m
}

func randomCentres(r *rand.Rand, n, d int) [][]float32 {
	out := make([][]float32, n)
	for c := range out {
		out[c] = make([]float32, d)
		for k := range out[c] {
			out[c][k] = float32(r.NormFloat64())
		}
	}
	return out
}

// The near-duplicate passes on kernels/cuda's Backend over the Host device
// (small tiles, 1 and 3 device workers, 1 and 4 threads) give the CPU's
// results byte for byte: Find's pairs, clusters and per-benchmark
// figures, FindRows's (the row-streamed join), and the perceptual video
// identities; and the joins went to the backend.
func TestDuplicatePassesOnABackendMatchTheCPU(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(4, 2))
	text := noisyUnits(r, randomCentres(r, 10, 12), 360, 0.2)
	items := make([]*harness.Item, text.Rows)
	for i := range items {
		items[i] = &harness.Item{ID: fmt.Sprint(i), Benchmark: fmt.Sprint("B", i%3), Video: fmt.Sprint("v", i%50), Question: "q", Options: []string{"x", "y"}}
	}
	// Videos of 4 frames each; every third one is re-encoded (the same
	// frames with a little noise) under another content identity.
	var base []string
	var frames []dups.FrameMean
	for v := range 90 {
		f := noisyUnits(r, randomCentres(r, 4, 8), 4, 0)
		rows := []int{0, 1, 2, 3}
		base = append(base, fmt.Sprintf("sha256:%03d", v))
		frames = append(frames, dups.MeanFrame(f, rows))
		if v%3 == 0 {
			g := kernels.NewMatrix(4, 8)
			for i := range g.Data {
				g.Data[i] = f.Data[i] + 0.02*float32(r.NormFloat64())
			}
			kernels.NormalizeRows(g)
			base = append(base, fmt.Sprintf("sha256:%03d-re", v))
			frames = append(frames, dups.MeanFrame(g, rows))
		}
	}
	passes := []struct {
		name string
		run  func(opt kernels.Options) (any, error)
	}{
		{"Find", func(opt kernels.Options) (any, error) { return dups.FindOpt(ctx, items, text, 0.9, opt) }},
		{"FindRows", func(opt kernels.Options) (any, error) { return dups.FindRows(ctx, items, text, 0.9, opt) }},
		{"PerceptualIdentities", func(opt kernels.Options) (any, error) {
			ids, n, err := dups.PerceptualIdentities(ctx, base, frames, dups.PerceptualThreshold, opt)
			return struct {
				IDs   []string
				Count dups.PerceptualCount
			}{ids, n}, err
		}},
	}
	for _, p := range passes {
		t.Run(p.name, func(t *testing.T) {
			res, err := p.run(kernels.Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			switch res := res.(type) {
			case *dups.Result:
				if len(res.Pairs) == 0 {
					t.Fatal("no near-duplicate pair: the case tests nothing")
				}
			default:
				var ids struct{ IDs []string }
				if err := json.Unmarshal(want, &ids); err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(ids.IDs, func(s string) bool { return strings.HasPrefix(s, dups.PerceptualPrefix) }) {
					t.Fatal("no video joined another: the case tests nothing")
				}
			}
			for _, tt := range []struct{ threads, workers int }{{1, 1}, {4, 3}} {
				j := &countingJoiner{j: &cuda.Backend{Device: cuda.Host{Rows: 16, Cols: 48}, Workers: tt.workers}}
				res, err := p.run(kernels.Options{Threads: tt.threads, Joiner: j})
				if err != nil {
					t.Fatal(err)
				}
				got, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("%d threads, %d device workers: the result differs from the CPU's", tt.threads, tt.workers)
				}
				if j.calls.Load() == 0 {
					t.Errorf("%d threads, %d device workers: no join reached the backend", tt.threads, tt.workers)
				}
			}
		})
	}
}
