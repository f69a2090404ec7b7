package run

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// TestEmbedRowsReadsEachItemsRow builds the rows of ten items of three
// benchmarks whose items interleave in item order (two cached in .npy
// files, one held in memory as an uncached matrix is) and checks that
// every way of reading them gives exactly each item's row: by item ranges
// (the join's tiles), gathered in a permuted order (one benchmark's stream
// of a unit) and written as one .npy, byte for byte what npy.Write gives
// for the matrix in item order.
func TestEmbedRowsReadsEachItemsRow(t *testing.T) {
	t.Parallel()
	const n, d = 10, 3
	want := kernels.NewMatrix(n, d)
	for i := range want.Data {
		want.Data[i] = float32(i) + 0.5
	}
	benchmarks := [][]int{{0, 1, 2, 5, 9}, {3, 4}, {6, 7, 8}}
	dir := t.TempDir()
	e := newEmbedRows(n, d)
	for k, items := range benchmarks {
		m := kernels.NewMatrix(len(items), d)
		for j, i := range items {
			copy(m.Row(j), want.Row(i))
		}
		var r kernels.RowReader = m
		if k != 1 {
			path := filepath.Join(dir, string(rune('a'+k))+".npy")
			if err := npy.WriteFile(path, m, npy.Float32); err != nil {
				t.Fatal(err)
			}
			f, err := npy.OpenRows(path)
			if err != nil {
				t.Fatal(err)
			}
			r = f
		}
		if err := e.add(r, items); err != nil {
			t.Fatal(err)
		}
	}
	defer e.close()
	if r, c := e.Shape(); r != n || c != d {
		t.Fatalf("shape %dx%d", r, c)
	}
	for _, span := range [][2]int{{0, n}, {0, 3}, {2, 7}, {9, 10}, {4, 4}} {
		got, err := kernels.ReadMatrix(e, span[0], span[1])
		if err != nil {
			t.Fatal(err)
		}
		if w := want.Data[span[0]*d : span[1]*d]; !slices.Equal(got.Data, w) {
			t.Errorf("rows %v: got %v, want %v", span, got.Data, w)
		}
	}
	for _, order := range [][]int32{{9, 5, 2, 1, 0}, {7, 6, 8}, {3, 4, 6, 0}, {}} {
		got, err := e.gather(order)
		if err != nil {
			t.Fatal(err)
		}
		for p, i := range order {
			if !slices.Equal(got.Row(p), want.Row(int(i))) {
				t.Errorf("gather %v: row %d is %v, want item %d's %v", order, p, got.Row(p), i, want.Row(int(i)))
			}
		}
	}
	var gotNPY, wantNPY bytes.Buffer
	if err := e.writeNPY(&gotNPY); err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(&wantNPY, want, npy.Float32); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotNPY.Bytes(), wantNPY.Bytes()) {
		t.Error("writeNPY differs from npy.Write of the matrix in item order")
	}
	if err := e.ReadRows(make([]float32, 2*d), n-1); err == nil {
		t.Error("a read past the last item was accepted")
	}
	if err := e.add(kernels.NewMatrix(2, d), []int{0}); err == nil {
		t.Error("a source of 2 rows for 1 item was accepted")
	}
}
