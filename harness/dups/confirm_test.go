package dups_test

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// plane gives unit rows at the given angles (degrees): every cosine between
// two rows is cos of their difference.
func plane(angles ...float64) *kernels.Matrix {
	m := kernels.NewMatrix(len(angles), 2)
	for i, a := range angles {
		r := a * math.Pi / 180
		m.Row(i)[0], m.Row(i)[1] = float32(math.Cos(r)), float32(math.Sin(r))
	}
	return m
}

func TestConfirmKeepsOnlyPairsBothModelsFind(t *testing.T) {
	t.Parallel()
	// The first model: 0-1 (20 deg) and 1-2 (20 deg) within A, 3-4 (10 deg)
	// across A and B, 5-6 (5 deg) within B.
	items, first := fixture([]struct {
		bench, video string
		angle        float64
	}{
		{"A", "v1", 0}, {"A", "v2", 20}, {"A", "v3", 40}, {"A", "v4", 120},
		{"B", "v5", 130}, {"B", "v6", 200}, {"B", "v7", 205},
	})
	res, err := dups.Find(context.Background(), items, first, 0.90)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		second   *kernels.Matrix
		kept     [][2]int
		rejected [][2]int
		removed  map[string]int // per benchmark
		clusterA int            // distinct clusters within A
		shareB   float64
		crossA   int
	}{
		{
			name: "the second model agrees",
			// 0-1, 1-2 at 15 deg; 3-4 at 0; 5-6 at 20 (cos 0.940).
			second:   plane(0, 15, 30, 90, 90, 0, 20),
			kept:     [][2]int{{0, 1}, {1, 2}, {3, 4}, {5, 6}},
			removed:  map[string]int{"A": 0, "B": 0},
			clusterA: 2, shareB: 2.0 / 3, crossA: 1,
		},
		{
			name: "the second model splits a chain and a cross-benchmark pair",
			// 1-2 at 30 deg (cos 0.866) and 3-4 at 40 deg are rejected.
			second:   plane(0, 10, 40, 90, 130, 0, 20),
			kept:     [][2]int{{0, 1}, {5, 6}},
			rejected: [][2]int{{1, 2}, {3, 4}},
			removed:  map[string]int{"A": 2, "B": 1},
			clusterA: 3, shareB: 2.0 / 3, crossA: 0,
		},
		{
			name: "an empty text's zero row confirms nothing",
			second: func() *kernels.Matrix {
				m := plane(0, 0, 0, 90, 90, 0, 0)
				clear(m.Row(6))
				return m
			}(),
			kept:     [][2]int{{0, 1}, {1, 2}, {3, 4}},
			rejected: [][2]int{{5, 6}},
			removed:  map[string]int{"A": 0, "B": 1},
			clusterA: 2, shareB: 0, crossA: 1,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dups.Confirm(items, res, tt.second)
			if err != nil {
				t.Fatal(err)
			}
			// The rows of the paired items alone give the same result.
			idx := dups.PairItems(res, len(items))
			sub := kernels.NewMatrix(len(idx), tt.second.Cols)
			for j, i := range idx {
				copy(sub.Row(j), tt.second.Row(i))
			}
			if byPairs, err := dups.ConfirmPairs(items, res, idx, sub); err != nil || !reflect.DeepEqual(byPairs, got) {
				t.Errorf("ConfirmPairs differs from Confirm (error %v)", err)
			}
			if _, err := dups.ConfirmPairs(items, res, idx, &kernels.Matrix{Rows: 1, Cols: 2, Data: sub.Data[:2]}); err == nil {
				t.Error("ConfirmPairs accepted fewer rows than items")
			}
			short := &kernels.Matrix{Rows: len(idx) - 1, Cols: sub.Cols, Data: sub.Data[sub.Cols:]}
			if _, err := dups.ConfirmPairs(items, res, idx[1:], short); err == nil || !strings.Contains(err.Error(), "has no row") {
				t.Errorf("ConfirmPairs without the row of a paired item: got %v", err)
			}
			pairs := func(ps []dups.Pair) [][2]int {
				var out [][2]int
				for _, p := range ps {
					out = append(out, [2]int{p.A, p.B})
					want := float32(float64(tt.second.Row(p.A)[0])*float64(tt.second.Row(p.B)[0]) + float64(tt.second.Row(p.A)[1])*float64(tt.second.Row(p.B)[1]))
					if math.Abs(float64(p.ConfirmSim-want)) > 1e-6 {
						t.Errorf("pair %d-%d: confirm similarity %v, want %v", p.A, p.B, p.ConfirmSim, want)
					}
					if p.Sim < 0.90 {
						t.Errorf("pair %d-%d lost its first similarity: %v", p.A, p.B, p.Sim)
					}
				}
				return out
			}
			if k := pairs(got.Pairs); !slices.Equal(k, tt.kept) {
				t.Errorf("kept %v, want %v", k, tt.kept)
			}
			if r := pairs(got.Unconfirmed); !slices.Equal(r, tt.rejected) {
				t.Errorf("rejected %v, want %v", r, tt.rejected)
			}
			if !got.Confirmed || res.Confirmed || len(res.Pairs) != 4 {
				t.Errorf("Confirmed %v; the input was modified: %v, %d pairs", got.Confirmed, res.Confirmed, len(res.Pairs))
			}
			for b, n := range tt.removed {
				s, _ := got.ForBenchmark(b)
				if s.Unconfirmed != n {
					t.Errorf("%s: %d pairs removed, want %d", b, s.Unconfirmed, n)
				}
			}
			a, _ := got.ForBenchmark("A")
			b, _ := got.ForBenchmark("B")
			if a.Clusters != tt.clusterA || b.NearDuplicateShare != tt.shareB || a.CrossItems != tt.crossA {
				t.Errorf("A clusters %d, B share %v, A cross items %d; want %d, %v, %d", a.Clusters, b.NearDuplicateShare, a.CrossItems, tt.clusterA, tt.shareB, tt.crossA)
			}
		})
	}
}

func TestConfirmRejectsMismatchedRows(t *testing.T) {
	t.Parallel()
	items, first := fixture([]struct {
		bench, video string
		angle        float64
	}{{"A", "v1", 0}, {"A", "v2", 5}})
	res, err := dups.Find(context.Background(), items, first, 0.90)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dups.Confirm(items, res, plane(0)); err == nil {
		t.Error("one row for two items was accepted")
	}
	if got := dups.PairItems(res, len(items)); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("PairItems %v, want [0 1]", got)
	}
}

// BenchmarkConfirm confirms the lexical near-duplicate pairs of the real
// development data (about 8,500 at 0.90) against a second, narrower lexical
// embedding: the cosine per pair and the re-summary.
func BenchmarkConfirm(b *testing.B) {
	items := attacktest.LoadReal(b)
	text, _, err := attacktest.Embed(context.Background(), items)
	if err != nil {
		b.Fatal(err)
	}
	res, err := dups.Find(context.Background(), items, text, dups.DefaultThreshold)
	if err != nil {
		b.Fatal(err)
	}
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = textembed.ItemText(it)
	}
	second, err := textembed.NewLexical(128).Embed(context.Background(), texts)
	if err != nil {
		b.Fatal(err)
	}
	var out *dups.Result
	for b.Loop() {
		if out, err = dups.Confirm(items, res, second); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Pairs)*b.N)/b.Elapsed().Seconds(), "pairs/s")
	b.ReportMetric(float64(len(out.Unconfirmed)), "rejected")
}
