package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

func runKernelCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &o, stderr: &e, getenv: func(string) string { return "" }}
	code := run(context.Background(), args, env)
	return code, o.String(), e.String()
}

// writeNpy writes rows to dir/name as float32 .npy and returns the path.
func writeNpy(t *testing.T, dir, name string, rows [][]float32) string {
	t.Helper()
	m := kernels.NewMatrix(len(rows), len(rows[0]))
	for i, r := range rows {
		copy(m.Row(i), r)
	}
	path := filepath.Join(dir, name)
	if err := npy.WriteFile(path, m, npy.Float32); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNeardupWritesPairsAndClusters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Rows 0, 1, 3 point the same way (row 3 is a scaled copy: --normalize
	// makes it a duplicate); row 2 is orthogonal; row 4 is at 45 degrees.
	a := writeNpy(t, dir, "a.npy", [][]float32{{1, 0}, {0.99, 0.05}, {0, 1}, {3, 0}, {1, 1}})
	out := filepath.Join(dir, "pairs.parquet")
	code, stdout, stderr := runKernelCommand(t, "neardup", "--a", a, "--tau", "0.9", "--out", out, "--threads", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum neardupSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	if sum.Pairs != 3 || sum.Clusters != 1 || sum.ItemsInClusters != 3 || sum.LargestCluster != 3 || sum.RowsA != 5 {
		t.Errorf("summary %+v", sum)
	}
	rows, err := parquet.ReadFile[neardupRow](out)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int32{{0, 1}, {0, 3}, {1, 3}}
	if len(rows) != len(want) {
		t.Fatalf("rows %v, want pairs %v", rows, want)
	}
	for k, r := range rows {
		if r.I != want[k][0] || r.J != want[k][1] || r.Sim < 0.9 || r.Sim > 1.0000001 {
			t.Errorf("row %d: %+v, want pair %v", k, r, want[k])
		}
	}
	// A cross join: i indexes A, j indexes B.
	b := writeNpy(t, dir, "b.npy", [][]float32{{0, 2}, {1, 0.01}})
	code, stdout, stderr = runKernelCommand(t, "neardup", "--a", a, "--b", b, "--tau", "0.99", "--out", out)
	if code != 0 {
		t.Fatalf("cross join exit %d: %s", code, stderr)
	}
	rows, _ = parquet.ReadFile[neardupRow](out)
	if len(rows) != 4 || rows[0] != (neardupRow{0, 1, rows[0].Sim}) || rows[1].I != 1 || rows[2] != (neardupRow{2, 0, 1}) || rows[3].I != 3 {
		t.Errorf("cross join rows %+v", rows)
	}
}

func TestNeardupBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeNpy(t, dir, "a.npy", [][]float32{{1, 0}, {0, 1}})
	b := writeNpy(t, dir, "b.npy", [][]float32{{1, 0, 0}})
	bad := filepath.Join(dir, "bad.npy")
	os.WriteFile(bad, []byte("not numpy"), 0o644)
	out := filepath.Join(dir, "p.parquet")
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing --out", []string{"--a", a}, 2, "--a and --out are required"},
		{"missing file", []string{"--a", filepath.Join(dir, "none.npy"), "--out", out}, 2, "none.npy"},
		{"not a .npy", []string{"--a", bad, "--out", out}, 2, "bad.npy: npy magic"},
		{"widths differ", []string{"--a", a, "--b", b, "--out", out}, 2, "has 2 columns but"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runKernelCommand(t, append([]string{"neardup"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, tc.code, tc.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a failed run left a pairs file")
			}
		})
	}
}

func TestVendiCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Three orthogonal items, one repeated: eigenvalues 2/4, 1/4, 1/4.
	v := writeNpy(t, dir, "v.npy", [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0}})
	tx := writeNpy(t, dir, "t.npy", [][]float32{{1, 0}, {1, 0}, {1, 0}, {0, 1}})
	want := math.Exp(-(0.5*math.Log(0.5) + 0.5*math.Log(0.25)))
	tests := []struct {
		name   string
		args   []string
		score  float64
		method string
		n      int
	}{
		{"features by the dual", []string{"--a", v}, want, "dual", 4},
		{"order inf", []string{"--a", v, "--q", "inf"}, 2, "dual", 4},
		// The joint kernel tells row 3 apart by its text: all four differ.
		{"joint kernel", []string{"--a", v, "--b", tx}, 4, "kernel", 4},
		{"sample of two distinct rows", []string{"--a", v, "--b", tx, "--sample", "2", "--seed", "7"}, 2, "kernel", 2},
		{"estimate", []string{"--a", v, "--b", tx, "--method", "slq"}, 4, "slq", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runKernelCommand(t, append([]string{"vendi"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var sum vendiSummary
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatalf("summary %q: %v", stdout, err)
			}
			if math.Abs(sum.Score-tc.score) > 1e-6*tc.score || sum.Method != tc.method || sum.N != tc.n {
				t.Errorf("summary %+v, want score %v by %s over %d", sum, tc.score, tc.method, tc.n)
			}
		})
	}
	for _, bad := range [][]string{{"--a", v, "--q", "-1"}, {"--a", v, "--sample", "9"}, {"--a", v, "--b", writeNpy(t, dir, "short.npy", [][]float32{{1}})}} {
		if code, _, _ := runKernelCommand(t, append([]string{"vendi"}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
