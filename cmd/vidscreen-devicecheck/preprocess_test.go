package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// TestPrepChecks runs the preprocessing checks end to end on the CPU: the
// reference from imageprep, then the report with no device (GPU fields
// null, Host's port of the kernels equal to the reference), with Host as
// the device (the GPU path's bookkeeping: digest, max abs diff, rates),
// and against a reference whose frames differ.
func TestPrepChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("1080p frames: not in -short")
	}
	ctx := context.Background()
	checks, err := prepReference(ctx, seed)
	if err != nil {
		t.Fatal(err)
	}
	ref := &Reference{Seed: seed, CPU: "test", Checks: checks}
	// Through JSON, as the bundle carries it.
	b, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	var back Reference
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		dev  cuda.Device
	}{{"no device", nil}, {"host as the device", hostDevice{}}} {
		t.Run(c.name, func(t *testing.T) {
			res, err := prepChecks(ctx, &back, c.dev, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(prepCases) {
				t.Fatalf("%d results, want %d", len(res), len(prepCases))
			}
			for _, r := range res {
				if r.Error != "" || r.PrepFigures == nil || r.CPUFramesPS <= 0 || !strings.Contains(r.Ceiling, "frames/s") {
					t.Fatalf("%s: %+v", r.Name, r)
				}
				if c.dev == nil {
					if r.HostPortEqual == nil || !*r.HostPortEqual || r.Equal != nil || r.GPUFramesPS != nil {
						t.Fatalf("%s: host port equal %v, GPU fields %v %v: want true and null", r.Name, r.HostPortEqual, r.Equal, r.GPUFramesPS)
					}
					continue
				}
				if r.Equal == nil || !*r.Equal || *r.MaxAbsDiff != 0 || *r.GPUFramesPS <= 0 || *r.GPULoadFramesPS <= 0 || *r.GPUCount != r.CPUCount {
					t.Fatalf("%s: equal %v, max abs diff %v, frames/s %v and %v, count %v of %d", r.Name, r.Equal, r.MaxAbsDiff, r.GPUFramesPS, r.GPULoadFramesPS, r.GPUCount, r.CPUCount)
				}
			}
		})
	}
	bad := back
	bad.Checks = append([]RefCheck(nil), back.Checks...)
	fig := *bad.Checks[0].PrepFigures
	fig.FramesSHA256 = "0"
	bad.Checks[0].PrepFigures = &fig
	if _, err := prepChecks(ctx, &bad, nil, 2); err == nil || !strings.Contains(err.Error(), "seeded frames differ") {
		t.Fatalf("error %v, want the frames' mismatch", err)
	}
	if _, err := prepChecks(ctx, &Reference{Seed: seed}, nil, 2); err == nil || !strings.Contains(err.Error(), "no check preprocess_224") {
		t.Fatalf("error %v, want the missing check", err)
	}
}
