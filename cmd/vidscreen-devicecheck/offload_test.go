package main

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// TestOffloadCheckSides runs the offload check on a short ladder: with no
// device (the dry run) each rung has this machine's CPU seconds, the
// reference's result, and null GPU fields; with kernels/cuda's Host
// device standing in for a GPU every rung gives the reference's pairs and
// neighbours, is timed on both sides, and each search has a crossing
// entry.
func TestOffloadCheckSides(t *testing.T) {
	ctx := context.Background()
	rows := []int{64, 128, 256}
	rc, err := offloadReference(ctx, seed, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Rungs) != 2*len(rows) {
		t.Fatalf("%d reference rungs, want %d", len(rc.Rungs), 2*len(rows))
	}
	for _, r := range rc.Rungs {
		if r.Count == 0 || r.MultiplyAdds != int64(r.Rows)*int64(r.Rows)*dim {
			t.Fatalf("reference rung %+v: no result, or not rows x rows x %d", r, dim)
		}
	}
	ref := &Reference{Seed: seed, Checks: []RefCheck{rc}}
	configs := gpuConfigs()
	t.Run("dry run", func(t *testing.T) {
		res, err := offloadChecks(ctx, ref, configs, make([]cuda.Device, len(configs)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Equal != nil || res.Crossings != nil || res.MeasuredMinWork != nil || res.DefaultMinWork != kernels.DefaultMinWork || res.CPUKernels == "" {
			t.Errorf("no device, yet %+v", res.OffloadFigures)
		}
		for _, r := range res.Rungs {
			if r.CPUSeconds <= 0 || r.CPUReps < offloadMinReps || r.CPUEqual == nil || !*r.CPUEqual || r.GPUSeconds != nil || r.Equal != nil || r.GPUFaster != nil {
				t.Errorf("rung %s/%d: %+v", r.Search, r.Rows, r)
			}
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"gpu_seconds":null`) || !strings.Contains(string(b), `"measured_min_work":null`) {
			t.Errorf("the dry run's row does not keep its GPU fields null: %s", b)
		}
	})
	t.Run("host device", func(t *testing.T) {
		devs := make([]cuda.Device, len(configs))
		devs[1] = cuda.Host{Rows: 64, Cols: 100}
		res, err := offloadChecks(ctx, ref, configs, devs)
		if err != nil {
			t.Fatal(err)
		}
		if res.Error != "" || res.Equal == nil || !*res.Equal || res.Backend != configs[1].label {
			t.Fatalf("equal %v, backend %q, error %q", res.Equal, res.Backend, res.Error)
		}
		for _, r := range res.Rungs {
			if r.GPUSeconds == nil || *r.GPUSeconds <= 0 || r.Equal == nil || !*r.Equal || r.GPUFaster == nil {
				t.Errorf("rung %s/%d: %+v", r.Search, r.Rows, r)
			}
		}
		if len(res.Crossings) != 2 {
			t.Errorf("crossings %+v: want one per search", res.Crossings)
		}
	})
}

func TestCrossings(t *testing.T) {
	ladder := func(faster ...bool) []OffloadRung {
		var out []OffloadRung
		for _, s := range []string{"join", "topk"} {
			for i, f := range faster {
				n := 64 << i
				out = append(out, OffloadRung{Search: s, Rows: n, MultiplyAdds: int64(n * n * dim), GPUFaster: &f})
			}
		}
		return out
	}
	w := func(rows int) *int64 { v := int64(rows * rows * dim); return &v }
	tests := []struct {
		name   string
		rungs  []OffloadRung
		want   []*int64 // join's, topk's
		worst  *int64
		saying string
	}{
		{"faster from the middle", ladder(false, false, true, true), []*int64{w(256), w(256)}, w(256), "the CPU is faster at"},
		{"a faster rung below a slower one does not count", ladder(true, false, true, true), []*int64{w(256), w(256)}, w(256), "the GPU from"},
		{"faster everywhere", ladder(true, true, true), []*int64{w(64), w(64)}, w(64), "at or below the smallest"},
		{"never faster at the top", ladder(true, true, false), []*int64{nil, nil}, nil, "above the ladder"},
		{"no GPU time", []OffloadRung{{Search: "join", Rows: 64, MultiplyAdds: int64(64 * 64 * dim)}}, []*int64{nil}, nil, "above the ladder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, worst := crossings(tt.rungs)
			if len(got) != len(tt.want) {
				t.Fatalf("%d crossings, want %d", len(got), len(tt.want))
			}
			for i, c := range got {
				if !reflect.DeepEqual(c.MultiplyAdds, tt.want[i]) || !strings.Contains(c.Note, tt.saying) {
					t.Errorf("%s: %v (%q), want %v saying %q", c.Search, c.MultiplyAdds, c.Note, tt.want[i], tt.saying)
				}
			}
			if !reflect.DeepEqual(worst, tt.worst) {
				t.Errorf("measured min work %v, want %v", worst, tt.worst)
			}
		})
	}
	// The two searches cross apart: the one cut is the larger.
	mixed := ladder(false, true, true)
	f := false
	mixed[4].GPUFaster = &f // topk at 128 rows
	if _, worst := crossings(mixed); worst == nil || *worst != *w(256) {
		t.Errorf("join from 128 rows, topk from 256: one cut %v, want %d", worst, *w(256))
	}
}
