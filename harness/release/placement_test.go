package release

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/kernelstest"
)

// placements are the ways a test places the searches on a backend over
// the Host device (small tiles, so that each search spans many): directly
// at 1 and 3 device workers, and behind kernels.Offload sending every
// search there one at a time, as select --device does.
var placements = []struct {
	name    string
	workers int
	offload bool
}{{"1 worker", 1, false}, {"3 workers", 3, false}, {"3 workers, offloaded", 3, true}}

// place hands out p directly, or behind an Offload that sends it every search.
func place(p *kernelstest.Counter, offload bool) (kernels.Joiner, kernels.NeighbourSearcher) {
	if offload {
		o := kernels.NewOffload(p, p, 1, 1)
		return o, o
	}
	return p, p
}

// A release whose red team searches (copy's threshold joins, knn-vote's
// prequential top-k) on kernels/cuda's Backend writes the CPU's bytes, at
// 1 and 3 red-team workers, and the searches did reach the backend.
func TestReleaseSearchesOnABackendWriteTheCPUFiles(t *testing.T) {
	t.Parallel()
	p, cfg := plantedPool(t, 60, 10)
	q := Query{Budget: 30, Caps: &Caps{PerVideo: 1, PerScene: 1, PerTemplate: 5, SourceShare: 1}}
	cpu, want := compose(t, p, cfg, q, 3, 1)
	for _, pl := range placements {
		t.Run(pl.name, func(t *testing.T) {
			b := kernelstest.Count(&cuda.Backend{Device: cuda.Host{Rows: 8, Cols: 24}, Workers: pl.workers})
			placed := cfg
			placed.Joiner, placed.Searcher = place(b, pl.offload)
			r, got := compose(t, p, placed, q, 3, pl.workers)
			if r.Name != cpu.Name {
				t.Errorf("the release is named %s, the CPU's %s", r.Name, cpu.Name)
			}
			for f := range want {
				if !bytes.Equal(got[f], want[f]) {
					t.Errorf("%s differs from the CPU's", f)
				}
			}
			if b.Joins() == 0 || b.TopKs() == 0 {
				t.Errorf("the backend ran %d joins and %d top-k searches; the red team searched elsewhere", b.Joins(), b.TopKs())
			}
		})
	}
}

// Scenes over 600 videos (three blocks of the leader clustering) in a few
// looks, placed on the backend, are the CPU's.
func TestScenesOnABackendAreTheCPUs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	const n, d = 600, 16
	looks := kernels.NewMatrix(12, d)
	for i := range looks.Data {
		looks.Data[i] = float32(rng.NormFloat64())
	}
	videos := make([]string, n)
	x := kernels.NewMatrix(n, d)
	for i := range videos {
		videos[i] = fmt.Sprintf("v%04d", (i*7919)%n) // not in name order
		look := looks.Row(rng.IntN(looks.Rows))
		for k := range x.Row(i) {
			x.Row(i)[k] = look[k] + 0.15*float32(rng.NormFloat64())
		}
	}
	groups := slices.Repeat([]string{"1-3m"}, n) // one group: 600 videos, three blocks
	want, _, err := Scenes(context.Background(), videos, groups, x, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scenes := map[string]bool{}
	for _, s := range want {
		scenes[s] = true
	}
	if len(scenes) < 12 || len(scenes) > n/4 {
		t.Fatalf("%d scenes of %d videos: the case tests nothing", len(scenes), n)
	}
	for _, pl := range placements {
		t.Run(pl.name, func(t *testing.T) {
			b := kernelstest.Count(&cuda.Backend{Device: cuda.Host{Rows: 8, Cols: 24}, Workers: pl.workers})
			j, s := place(b, pl.offload)
			got, _, err := Scenes(context.Background(), videos, groups, x, DefaultSceneThreshold, kernels.Options{Threads: pl.workers, Joiner: j, Searcher: s})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Error("the scenes differ from the CPU's")
			}
			if b.Joins() != 2 {
				t.Errorf("the backend ran %d joins, want one per block after the first (2)", b.Joins())
			}
		})
	}
}
