package main

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

func TestSeededIsReproducible(t *testing.T) {
	a, b := seeded(300, 64, 5), seeded(300, 64, 5)
	if digestMatrix(a) != digestMatrix(b) {
		t.Fatal("the same seed gave different data")
	}
	if digestMatrix(a) == digestMatrix(seeded(300, 64, 6)) {
		t.Fatal("another seed gave the same data")
	}
}

// TestSeededPlantsPairsEitherSideOfTau: the data must give the join pairs
// to find, some of them close enough to tau that the re-check decides.
func TestSeededPlantsPairsEitherSideOfTau(t *testing.T) {
	x := seeded(2000, 256, 7)
	var near, above int
	err := kernels.ThresholdJoin(context.Background(), x, nil, 0.85, kernels.Options{}, func(ps []kernels.Pair) error {
		for _, p := range ps {
			if p.Sim >= refTau {
				above++
			} else {
				near++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if above == 0 || near == 0 {
		t.Fatalf("%d pairs at or above %v and %d between 0.85 and it: want both", above, refTau, near)
	}
}

// TestTilePassRunsOnAnyDevice times the device side of a join on Host,
// the CPU implementation of the same interface the GPU has.
func TestTilePassRunsOnAnyDevice(t *testing.T) {
	x := seeded(500, 32, 8)
	secs, err := tilePass(context.Background(), cuda.Host{Rows: 128, Cols: 200}, x, refTau)
	if err != nil {
		t.Fatal(err)
	}
	if secs <= 0 {
		t.Fatalf("tile pass took %v s", secs)
	}
}

// TestDeviceVendiMatchesCPUVendiOnHost runs the Vendi check's two sides on
// Host, the CPU implementation of the GPU's interface: the estimates must
// agree within the check's tolerance, with K resident and formed per
// product, the basis on the device and its seconds a part of the split.
func TestDeviceVendiMatchesCPUVendiOnHost(t *testing.T) {
	ctx := context.Background()
	v, tx := coneRows(900, 64, 20, 1), coneRows(900, 48, 30, 2)
	want, _, err := cpuVendi(ctx, v, tx)
	if err != nil {
		t.Fatal(err)
	}
	for _, kb := range []int64{0, -1} {
		got, secs, times, err := deviceVendi(ctx, cuda.Host{Edge: 256}, v, tx, kb)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(got.Score-want.Score) / want.Score; d > vendiTol || secs <= 0 || times.Products <= 0 || times.Basis <= 0 || times.BasisNote != "" ||
			times.Form+times.Products+times.Basis+times.Host > secs*1.0001 {
			t.Errorf("kernel bytes %d: %.8g against the CPU's %.8g (%.2g relative) in %v s (%+v)", kb, got.Score, want.Score, d, secs, times)
		}
	}
}

// TestJoinCheckOnHostPrecisions runs the join check's comparison (count
// and digest of the pairs in order) with Host computing the tile products
// as each precision's own kernel does: every configuration the report
// lists must give the CPU's digest, bf16's wide band included.
func TestJoinCheckOnHostPrecisions(t *testing.T) {
	ctx := context.Background()
	x := seeded(1000, 128, 9)
	wantN, want, _, err := joinDigest(ctx, kernels.CPU{}, x, refTau)
	if err != nil {
		t.Fatal(err)
	}
	if wantN == 0 {
		t.Fatal("no pairs: the case tests nothing")
	}
	for _, c := range gpuConfigs() {
		t.Run(c.label, func(t *testing.T) {
			be := &cuda.Backend{Device: cuda.Host{Rows: 300, Cols: 400, Prec: c.prec}}
			n, got, _, err := joinDigest(ctx, be, x, refTau)
			if err != nil {
				t.Fatal(err)
			}
			if n != wantN || got != want {
				t.Fatalf("%d pairs (%s), the CPU's %d (%s)", n, got[:12], wantN, want[:12])
			}
			if peakOf(c) <= 0 || precisionOf(c) != c.prec.String() {
				t.Fatalf("no ceiling for %s", c.label)
			}
		})
	}
}
