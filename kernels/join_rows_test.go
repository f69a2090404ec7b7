package kernels

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// countingReader is a RowReader over a matrix that records the largest read,
// so that a test can check the join never asks for more than a tile.
type countingReader struct {
	m       *Matrix
	maxRows int
}

func (r *countingReader) Shape() (int, int) { return r.m.Shape() }

func (r *countingReader) ReadRows(dst []float32, lo int) error {
	r.maxRows = max(r.maxRows, len(dst)/r.m.Cols)
	return r.m.ReadRows(dst, lo)
}

func cbRows(r *countingReader) int {
	if r == nil {
		return 0
	}
	return r.maxRows
}

func joinAll(t testing.TB, join func(emit func([]Pair) error) error) []Pair {
	t.Helper()
	var got []Pair
	if err := join(func(ps []Pair) error { got = append(got, ps...); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestThresholdJoinRowsEqualsInMemory checks that the tiled join emits the
// very pairs of the in-memory join (same order, same similarity bits) for
// tiles that do and do not divide the rows, self and cross, at 1 and 3
// threads, and that it reads no more than a tile at a time.
func TestThresholdJoinRowsEqualsInMemory(t *testing.T) {
	t.Parallel()
	a := clustered(7, 1000, 48, 60, 0.3)
	b := clustered(8, 700, 48, 60, 0.3)
	// Rows shared between a and b, so that the cross join has pairs.
	copy(b.Data[:200*48], a.Data[300*48:500*48])
	for _, tc := range []struct {
		name string
		b    *Matrix
		tau  float32
	}{{"self", nil, 0.9}, {"self-low", nil, 0.5}, {"cross", b, 0.9}} {
		want := joinAll(t, func(emit func([]Pair) error) error {
			return ThresholdJoin(context.Background(), a, tc.b, tc.tau, Options{Threads: 1}, emit)
		})
		if len(want) == 0 {
			t.Fatalf("%s: the fixture has no pairs", tc.name)
		}
		for _, tile := range []int{61, 256, 999, 1000, 5000} {
			for _, threads := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/tile=%d/threads=%d", tc.name, tile, threads), func(t *testing.T) {
					ra := &countingReader{m: a}
					var rb RowReader
					var cb *countingReader
					if tc.b != nil {
						cb = &countingReader{m: tc.b}
						rb = cb
					}
					got := joinAll(t, func(emit func([]Pair) error) error {
						return ThresholdJoinRows(context.Background(), ra, rb, tc.tau, tile, Options{Threads: threads}, emit)
					})
					if !slices.Equal(got, want) {
						t.Fatalf("%d pairs, want %d (or the same pairs in another order or with other bits)", len(got), len(want))
					}
					if ra.maxRows > tile || cb != nil && cb.maxRows > tile {
						t.Errorf("read %d and %d rows at once, tile is %d", ra.maxRows, max(0, cbRows(cb)), tile)
					}
				})
			}
		}
	}
}

// failingReader fails every read from row fail on.
type failingReader struct {
	m    *Matrix
	fail int
}

func (r failingReader) Shape() (int, int) { return r.m.Shape() }

func (r failingReader) ReadRows(dst []float32, lo int) error {
	if lo+len(dst)/r.m.Cols > r.fail {
		return errors.New("disk gone")
	}
	return r.m.ReadRows(dst, lo)
}

func TestThresholdJoinRowsErrors(t *testing.T) {
	t.Parallel()
	a := clustered(9, 300, 16, 20, 0.3)
	err := ThresholdJoinRows(context.Background(), failingReader{a, 200}, nil, 0.9, 100, Options{}, func([]Pair) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "rows 200..300") || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("read failure: got %v", err)
	}
	err = ThresholdJoinRows(context.Background(), a, clustered(9, 10, 8, 2, 0.3), 0.9, 100, Options{}, func([]Pair) error { return nil })
	if err == nil {
		t.Error("a column mismatch was not refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ThresholdJoinRows(ctx, a, nil, 0.9, 100, Options{}, func([]Pair) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	stop := errors.New("stop")
	if err := ThresholdJoinRows(context.Background(), a, nil, 0.5, 100, Options{}, func([]Pair) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("emit error: got %v", err)
	}
}

// BenchmarkThresholdJoinRows is the pool's near-duplicate join read by tiles
// (the matrix behind a RowReader, as from a .npy file): GFLOP/s of the
// upper triangle, to compare with BenchmarkThresholdJoin's in-memory join.
func BenchmarkThresholdJoinRows(b *testing.B) {
	for _, n := range []int{16384} {
		a := clustered(1, n, 512, n/8, 0.35)
		for _, tile := range []int{4096, DefaultJoinTile} {
			b.Run(fmt.Sprintf("self/n=%d/d=512/tile=%d", n, tile), func(b *testing.B) {
				var pairs int
				for b.Loop() {
					pairs = 0
					err := ThresholdJoinRows(context.Background(), &countingReader{m: a}, nil, 0.9, tile, Options{}, func(ps []Pair) error {
						pairs += len(ps)
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				b.ReportMetric(float64(n)*float64(n-1)*512/sec/1e9, "GFLOP/s")
				b.ReportMetric(float64(pairs), "pairs-found")
			})
		}
	}
}
