package main

import (
	le "encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// writeVector writes a one-dimensional float32 .npy of the values.
func writeVector(t *testing.T, dir, name string, values []float32) string {
	t.Helper()
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (" + strconv.Itoa(len(values)) + ",), }"
	pad := 64 - (10+len(dict)+1)%64
	header := dict + strings.Repeat(" ", pad) + "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = le.LittleEndian.AppendUint16(b, uint16(len(header)))
	b = append(b, header...)
	for _, v := range values {
		b = le.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestVendiRefusesWhatItCannotScore: a 1-D array is not a matrix of
// embeddings, and --normalize=false on rows that are not unit vectors
// gave a score of 0 with exit 0.
func TestVendiRefusesWhatItCannotScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unit := writeNpy(t, dir, "unit.npy", [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}})
	long := writeNpy(t, dir, "long.npy", [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 10}, {1, 0, 0}})
	vec := writeVector(t, dir, "vec.npy", []float32{1, 2, 3, 4})
	for _, tc := range []struct {
		name string
		args []string
		msg  []string
	}{
		{"a 1-D array", []string{"--a", vec}, []string{"vec.npy", "shape (4,) is not a matrix"}},
		{"a 1-D joint file", []string{"--a", unit, "--b", vec}, []string{"vec.npy", "shape (4,)"}},
		{"rows of another length without normalising", []string{"--a", long, "--normalize=false"}, []string{"long.npy", "row 2", "length 10", "--normalize=false"}},
		{"a joint file of another length without normalising", []string{"--a", unit, "--b", long, "--normalize=false"}, []string{"long.npy", "row 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKernelCommand(t, append([]string{"vendi"}, tc.args...)...)
			if code != 2 {
				t.Fatalf("exit %d (stdout %q, stderr %q), want 2", code, stdout, stderr)
			}
			for _, m := range tc.msg {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr %q does not say %q", stderr, m)
				}
			}
		})
	}
	// Unit rows score the same with and without --normalize=false.
	var scores []float64
	for _, args := range [][]string{{"--a", unit}, {"--a", unit, "--normalize=false"}} {
		code, stdout, stderr := runKernelCommand(t, append([]string{"vendi"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var sum vendiSummary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatal(err)
		}
		scores = append(scores, sum.Score)
	}
	if want := math.Exp(-(0.5*math.Log(0.5) + 0.5*math.Log(0.25))); math.Abs(scores[0]-want) > 1e-9 || scores[1] != scores[0] {
		t.Errorf("scores %v, want %v twice", scores, want)
	}
}

// TestVendiEstimateWithoutKernelMemory: --kernel-memory 0 applies K
// through the features, exact to rounding; for a kernel of rank below n the
// estimate was 2.77e9 against the exact 15.94 (2000 x 16).
func TestVendiEstimateWithoutKernelMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, shape := range [][2]int{{2000, 16}, {500, 200}} {
		rng := rand.New(rand.NewPCG(uint64(shape[0]), uint64(shape[1])))
		m := kernels.NewMatrix(shape[0], shape[1])
		for i := range m.Data {
			m.Data[i] = float32(rng.NormFloat64())
		}
		p := filepath.Join(dir, "x.npy")
		if err := npy.WriteFile(p, m, npy.Float32); err != nil {
			t.Fatal(err)
		}
		score := func(args ...string) float64 {
			code, stdout, stderr := runKernelCommand(t, append([]string{"vendi", "--a", p}, args...)...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			var sum vendiSummary
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatal(err)
			}
			return sum.Score
		}
		exact := score("--method", "exact")
		for _, mem := range []string{"0", "8"} {
			got := score("--method", "slq", "--kernel-memory", mem)
			if math.Abs(got-exact) > 0.01*exact {
				t.Errorf("%d x %d, --kernel-memory %s: estimate %v, exact %v", shape[0], shape[1], mem, got, exact)
			}
		}
	}
}
