package main

import (
	"context"
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
