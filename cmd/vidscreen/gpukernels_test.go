package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestNeardupDeviceGivesTheCPUPairs runs the join with --device cuda:0:
// on the default build (or a machine with no usable GPU) that falls back
// to the CPU with one line on stderr; on bin/vidscreen-cuda's build with a
// GPU it runs there. The pairs must be the CPU's either way.
func TestNeardupDeviceGivesTheCPUPairs(t *testing.T) {
	dir := t.TempDir()
	rows := make([][]float32, 300)
	for i := range rows {
		rows[i] = make([]float32, 16)
		for k := range rows[i] {
			// A few directions with small offsets: many pairs above 0.95.
			rows[i][k] = float32((i%7+1)*(k%5+1)) + float32(i%11)*0.01
		}
	}
	a := writeNpy(t, dir, "a.npy", rows)
	read := func(device string) ([]neardupRow, string) {
		out := filepath.Join(dir, strings.ReplaceAll(device, ":", "_")+".parquet")
		code, _, stderr := runKernelCommand(t, "neardup", "--a", a, "--tau", "0.95", "--out", out, "--device", device)
		if code != 0 {
			t.Fatalf("--device %s: exit %d: %s", device, code, stderr)
		}
		got, err := parquet.ReadFile[neardupRow](out)
		if err != nil {
			t.Fatal(err)
		}
		return got, stderr
	}
	want, _ := read("cpu")
	if len(want) == 0 {
		t.Fatal("the CPU join found no pairs: the case tests nothing")
	}
	got, stderr := read("cuda:0")
	if !slices.Equal(got, want) {
		t.Fatalf("--device cuda:0 gave %d pairs, the CPU %d", len(got), len(want))
	}
	if n := strings.Count(stderr, "\n"); n != 1 {
		t.Errorf("--device cuda:0 wrote %d lines to stderr, want one (the device or why not): %q", n, stderr)
	}
	t.Logf("stderr: %s", strings.TrimSpace(stderr))
}

func TestNeardupDeviceRefusesBadSpecs(t *testing.T) {
	a := writeNpy(t, t.TempDir(), "a.npy", [][]float32{{1, 0}, {0, 1}})
	for _, dev := range []string{"cuda:0,1", "gpu", "cuda:-1"} {
		code, _, stderr := runKernelCommand(t, "neardup", "--a", a, "--out", filepath.Join(os.TempDir(), "x.parquet"), "--device", dev)
		if code != 2 {
			t.Errorf("--device %s: exit %d (%s), want 2", dev, code, stderr)
		}
	}
}
