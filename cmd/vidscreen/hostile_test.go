package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// The hostile-input suite: small files made by the tests, each a case a
// careful, hostile user tried (issue 15). The rule behind every case: a
// wrong answer never leaves with exit 0, and bad input is exit 2 with a
// message naming the file and what is wrong.

// nearDupRows returns n rows of width d in which rows 2k and 2k+1 are near
// duplicates, so a join at 0.9 finds n/2 pairs.
func nearDupRows(n, d int) *kernels.Matrix {
	m := kernels.NewMatrix(n, d)
	for i := 0; i < n; i++ {
		r := m.Row(i)
		r[(i/2)%d] = 1
		r[(i/2+1)%d] = float32(i/2%7) / 10
		r[(i/2+3)%d] += float32(i%2) / 100
	}
	return m
}

func TestKernelCommandsRefuseHostileInput(t *testing.T) {
	dir := t.TempDir()
	good := nearDupRows(2000, 64)
	goodPath := filepath.Join(dir, "good.npy")
	if err := npy.WriteFile(goodPath, good, npy.Float32); err != nil {
		t.Fatal(err)
	}
	withValue := func(name string, row int, v float32) string {
		m := &kernels.Matrix{Rows: good.Rows, Cols: good.Cols, Data: append([]float32(nil), good.Data...)}
		m.Row(row)[5] = v
		p := filepath.Join(dir, name)
		if err := npy.WriteFile(p, m, npy.Float32); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nanLast := withValue("nan-last.npy", 1999, float32(math.NaN()))
	infFirst := withValue("inf.npy", 3, float32(math.Inf(-1)))
	out := filepath.Join(dir, "pairs.parquet")
	for _, tc := range []struct {
		name string
		args []string
		msg  []string
	}{
		{"neardup with one NaN in the last of 2,000 rows", []string{"neardup", "--a", nanLast, "--out", out}, []string{"nan-last.npy", "row 1999", "NaN"}},
		{"neardup with an infinity in B", []string{"neardup", "--a", goodPath, "--b", infFirst, "--out", out}, []string{"inf.npy", "row 3", "-Inf"}},
		{"vendi with a NaN", []string{"vendi", "--a", nanLast}, []string{"nan-last.npy", "row 1999"}},
		{"vendi with an infinity in the joint file", []string{"vendi", "--a", goodPath, "--b", infFirst}, []string{"inf.npy", "row 3"}},
		{"neardup --tau NaN", []string{"neardup", "--a", goodPath, "--tau", "NaN", "--out", out}, []string{"--tau NaN"}},
		{"neardup --tau Inf", []string{"neardup", "--a", goodPath, "--tau", "-Inf", "--out", out}, []string{"--tau -Inf"}},
		{"neardup --out naming its input", []string{"neardup", "--a", goodPath, "--out", goodPath}, []string{"names the input", "good.npy"}},
		{"neardup --out naming B through another path", []string{"neardup", "--a", nanLast, "--b", goodPath, "--out", filepath.Join(dir, ".", "good.npy")}, []string{"names the input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKernelCommand(t, tc.args...)
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
	// The input named as --out is left as it was.
	m, err := npy.ReadFile(goodPath)
	if err != nil || m.Rows != good.Rows {
		t.Fatalf("the input was damaged: %v", err)
	}
}

// TestVendiHugeOrder: --q 1e308 is a valid order; it used to print +Inf and
// fail. The score tends to the q = inf one.
func TestVendiHugeOrder(t *testing.T) {
	dir := t.TempDir()
	v := writeNpy(t, dir, "v.npy", [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}})
	var scores []float64
	for _, q := range []string{"inf", "1e308", "1e6"} {
		for _, method := range []string{"exact", "slq"} {
			code, stdout, stderr := runKernelCommand(t, "vendi", "--a", v, "--q", q, "--method", method)
			if code != 0 {
				t.Fatalf("--q %s --method %s: exit %d: %s", q, method, code, stderr)
			}
			var sum vendiSummary
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatal(err)
			}
			scores = append(scores, sum.Score)
		}
	}
	for _, s := range scores {
		if math.Abs(s-2) > 1e-4 {
			t.Errorf("scores %v, want each about 2 (1/the largest eigenvalue 1/2)", scores)
			break
		}
	}
}

// TestOutputFileMode: every command writes its outputs 0644 (neardup's
// pairs and .npy files were 0600, the run directory's files 0644).
func TestOutputFileMode(t *testing.T) {
	dir := t.TempDir()
	a := writeNpy(t, dir, "a.npy", [][]float32{{1, 0}, {1, 0.01}})
	out := filepath.Join(dir, "pairs.parquet")
	if code, _, stderr := runKernelCommand(t, "neardup", "--a", a, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	for _, p := range []string{a, out} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", filepath.Base(p), st.Mode().Perm())
		}
	}
}
