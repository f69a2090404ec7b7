package kernels_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// python is the Debian interpreter that has numpy (the one on PATH may
// be a pyenv without it).
const python = "/usr/bin/python3"

func needNumpy(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("no numpy at %s (%v): install python3-numpy to cross-check with numpy", python, err)
	}
}

// numpyVendi is the same formula written in numpy, from the matrices
// alone: K = diag(sqrt p) (V V^T o T T^T) diag(sqrt p), eigvalsh, drop
// eigenvalues within rounding of zero, then the order-q entropy.
const numpyVendi = `
import json, sys
import numpy as np
v = np.load(sys.argv[1]).astype(np.float64)
t = np.load(sys.argv[2]).astype(np.float64)
w = np.load(sys.argv[3]).astype(np.float64).ravel()
p = w / w.sum()
k = (v @ v.T) * (t @ t.T) * np.sqrt(np.outer(p, p))
lam = np.linalg.eigvalsh(k)
lam = lam[lam > len(lam) * 2.0**-52 * lam.max()]
out = {}
for q in (0.5, 1.0, 2.0, float("inf")):
    if q == 1.0:
        h = -(lam * np.log(lam)).sum()
    elif q == float("inf"):
        h = -np.log(lam.max())
    else:
        h = np.log((lam ** q).sum()) / (1 - q)
    out[repr(q)] = float(np.exp(h))
print(json.dumps(out))
`

func randomUnit(seed uint64, n, d int) *kernels.Matrix {
	m := kernels.NewMatrix(n, d)
	s := seed
	for i := range m.Data {
		s = s*6364136223846793005 + 1442695040888963407 // a fixed LCG: numpy reads the file, not the generator
		m.Data[i] = float32(int64(s>>33)%2000)/1000 - 1 + 0.3
	}
	kernels.NormalizeRows(m)
	return m
}

func TestVendiMatchesNumpy(t *testing.T) {
	t.Parallel()
	needNumpy(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		n, dv, dt int
		weighted  bool
	}{{150, 40, 24, false}, {700, 32, 16, true}} {
		t.Run(fmt.Sprintf("n=%d/weighted=%v", tc.n, tc.weighted), func(t *testing.T) {
			v := randomUnit(1, tc.n, tc.dv)
			tx := randomUnit(2, tc.n, tc.dt)
			w := kernels.NewMatrix(tc.n, 1)
			var weights []float64
			for i := range w.Data {
				w.Data[i] = 1
				if tc.weighted {
					w.Data[i] = float32(1 + i%4)
				}
				weights = append(weights, float64(w.Data[i]))
			}
			paths := []string{filepath.Join(dir, "v.npy"), filepath.Join(dir, "t.npy"), filepath.Join(dir, "w.npy")}
			for i, m := range []*kernels.Matrix{v, tx, w} {
				if err := npy.WriteFile(paths[i], m, npy.Float32); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.Command(python, append([]string{"-c", numpyVendi}, paths...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("numpy: %v\n%s", err, out)
			}
			var want map[string]float64
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatalf("numpy printed %q: %v", out, err)
			}
			for key, q := range map[string]float64{"0.5": 0.5, "1.0": 1, "2.0": 2, "inf": math.Inf(1)} {
				got, err := kernels.VendiJoint(context.Background(), v, tx, q, weights, kernels.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if rel := math.Abs(got.Score/want[key] - 1); rel > 1e-6 {
					t.Errorf("q=%s: vidscreen %.12g, numpy %.12g (relative difference %.2g)", key, got.Score, want[key], rel)
				}
			}
		})
	}
}

// TestThresholdJoinMatchesNumpy counts the pairs numpy finds in float64.
func TestThresholdJoinMatchesNumpy(t *testing.T) {
	t.Parallel()
	needNumpy(t)
	x := randomUnit(3, 900, 6)
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := npy.WriteFile(path, x, npy.Float32); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "-c", `
import sys
import numpy as np
x = np.load(sys.argv[1]).astype(np.float64)
s = x @ x.T
i, j = np.nonzero(np.triu(s >= 0.95, 1))
print(len(i), int((i * 1000 + j).sum()))`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	var count, checksum int
	err = kernels.ThresholdJoin(context.Background(), x, nil, 0.95, kernels.Options{}, func(ps []kernels.Pair) error {
		for _, p := range ps {
			count++
			checksum += int(p.I)*1000 + int(p.J)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count == 0 {
		t.Fatal("no pairs at 0.95: the data no longer tests anything")
	}
	if got := fmt.Sprintf("%d %d\n", count, checksum); got != string(out) {
		t.Errorf("vidscreen found %q (pairs, checksum), numpy %q", got, out)
	}
}
