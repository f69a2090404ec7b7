package kernels

import (
	"context"
	"errors"
	"math"
	"testing"
)

func TestCheckFiniteNamesTheFirstBadValue(t *testing.T) {
	t.Parallel()
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		name     string
		data     []float32
		cols     int
		row, col int // -1: finite
	}{
		{"all finite", []float32{0, 1, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}, 3, -1, -1},
		{"NaN in the last row", []float32{1, 2, 3, 4, 5, nan}, 2, 2, 1},
		{"+Inf first", []float32{inf, 2, nan, 4}, 2, 0, 0},
		{"-Inf in the middle", []float32{1, 2, 3, float32(math.Inf(-1))}, 2, 1, 1},
		{"empty", nil, 4, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Matrix{Rows: len(tc.data) / tc.cols, Cols: tc.cols, Data: tc.data}
			err := CheckFinite(m)
			var ne *NonFiniteError
			if tc.row < 0 {
				if err != nil {
					t.Fatalf("CheckFinite = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &ne) || ne.Row != tc.row || ne.Col != tc.col {
				t.Fatalf("CheckFinite = %v, want row %d column %d", err, tc.row, tc.col)
			}
			if verr := CheckFiniteVector(tc.data); verr == nil {
				t.Fatalf("CheckFiniteVector accepted %v", tc.data)
			}
		})
	}
}

// TestVendiLargeOrdersTendToInfinity: a large finite q gives (nearly) the
// q = inf score instead of overflowing to +Inf (vendi --q 1e308 printed
// +Inf and failed).
func TestVendiLargeOrdersTendToInfinity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	x := NewMatrix(4, 2)
	copy(x.Data, []float32{1, 0, 1, 0, 1, 0, 0, 1})
	inf, err := VendiFeatures(ctx, x, math.Inf(1), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{1e6, 1e100, 1e308} {
		got, err := VendiFeatures(ctx, x, q, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsInf(got.Score, 0) || math.IsNaN(got.Score) || !near(got.Score, inf.Score, 1e-5) {
			t.Errorf("q=%g: score %v, want about %v (q = inf)", q, got.Score, inf.Score)
		}
		op, _ := NewJointKernel(embeddingLike(2, 300, 16, 5), nil, nil, Options{})
		est, err := VendiEstimate(ctx, op, q, SLQConfig{Seed: 1})
		if err != nil || math.IsInf(est.Score, 0) || math.IsNaN(est.Score) {
			t.Errorf("SLQ q=%g: %v, %v", q, est.Score, err)
		}
	}
}
