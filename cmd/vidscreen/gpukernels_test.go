package main

import (
	"encoding/json"
	"math"
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

// TestVendiDeviceGivesTheCPUEstimate runs the estimate with --device
// cuda:0: on the default build (or a machine without a usable GPU) it
// falls back to the CPU after one line on stderr; with bin/vidscreen-cuda's
// build on a GPU the products run there. Either way the score must be the
// CPU's within 1e-4; an exact score says it stays on the CPU.
func TestVendiDeviceGivesTheCPUEstimate(t *testing.T) {
	dir := t.TempDir()
	v, w := make([][]float32, 400), make([][]float32, 400)
	for i := range v {
		v[i], w[i] = make([]float32, 12), make([]float32, 8)
		for k := range v[i] {
			v[i][k] = float32(math.Sin(float64(i*(k+1)) * 0.37))
		}
		for k := range w[i] {
			w[i][k] = float32(math.Cos(float64(i*(k+2)) * 0.11))
		}
	}
	a, b := writeNpy(t, dir, "v.npy", v), writeNpy(t, dir, "t.npy", w)
	score := func(args ...string) (float64, string) {
		code, stdout, stderr := runKernelCommand(t, append([]string{"vendi", "--a", a, "--b", b, "--seed", "3"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var s vendiSummary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatal(err)
		}
		return s.Score, stderr
	}
	for _, c := range []struct {
		name   string
		method string
		say    string
	}{
		{"the estimate", "slq", ""},
		{"an exact score", "exact", "computed on the CPU"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, _ := score("--method", c.method)
			got, stderr := score("--method", c.method, "--device", "cuda:0")
			if d := math.Abs(got-want) / want; d > 1e-4 {
				t.Errorf("--device cuda:0 scored %.8g, the CPU %.8g (%.2g relative)", got, want, d)
			}
			if n := strings.Count(stderr, "\n"); n != 1 || !strings.Contains(stderr, c.say) {
				t.Errorf("stderr has %d lines, want one saying %q: %q", n, c.say, stderr)
			}
			t.Logf("stderr: %s", strings.TrimSpace(stderr))
		})
	}
	if code, _, stderr := runKernelCommand(t, "vendi", "--a", a, "--method", "slq", "--device", "cuda:0,1"); code != 2 {
		t.Errorf("--device cuda:0,1: exit %d (%s), want 2", code, stderr)
	}
}

// TestNeardupPrecision: tf32 and bf16 give the fp32 pairs (on the CPU fallback
// trivially; on a GPU through the re-check band), and a precision that
// does not exist is a usage error.
func TestNeardupPrecision(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := make([][]float32, 200)
	for i := range rows {
		rows[i] = make([]float32, 16)
		for k := range rows[i] {
			rows[i][k] = float32((i%5+1)*(k%3+1)) + float32(i%13)*0.02
		}
	}
	a := writeNpy(t, dir, "a.npy", rows)
	read := func(prec string) []neardupRow {
		out := filepath.Join(dir, prec+".parquet")
		code, _, stderr := runKernelCommand(t, "neardup", "--a", a, "--tau", "0.97", "--out", out, "--device", "cuda:0", "--precision", prec)
		if code != 0 {
			t.Fatalf("--precision %s: exit %d: %s", prec, code, stderr)
		}
		got, err := parquet.ReadFile[neardupRow](out)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := read("fp32")
	if len(want) == 0 {
		t.Fatal("no pairs: the case tests nothing")
	}
	for _, prec := range []string{"tf32", "bf16"} {
		if got := read(prec); !slices.Equal(got, want) {
			t.Errorf("%s gave %d pairs, fp32 %d", prec, len(got), len(want))
		}
	}
	if code, _, stderr := runKernelCommand(t, "neardup", "--a", a, "--out", filepath.Join(dir, "x.parquet"), "--device", "cuda:0", "--precision", "bf17"); code != 2 {
		t.Errorf("--precision bf17: exit %d (%s), want 2", code, stderr)
	}
}
