package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestBF16Round(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   float32
		want float32
	}{
		{"a value with 7 mantissa bits stays", 1 + 0x1p-7, 1 + 0x1p-7},
		{"below half an ulp rounds down", 1 + 0x1p-8 - 0x1p-23, 1},
		{"above half an ulp rounds up", 1 + 0x1p-8 + 0x1p-23, 1 + 0x1p-7},
		{"a tie rounds to the even neighbour below", 1 + 0x1p-8, 1},
		{"a tie rounds to the even neighbour above", 1 + 0x1p-7 + 0x1p-8, 1 + 0x1p-6},
		{"a negative tie rounds to even", -(1 + 0x1p-8), -1},
		{"zero stays", 0, 0},
		{"the largest float32 overflows, as in hardware", math.MaxFloat32, float32(math.Inf(1))},
		{"infinity stays", float32(math.Inf(-1)), float32(math.Inf(-1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := bf16Round(c.in); got != c.want {
				t.Fatalf("bf16Round(%g) = %g, want %g", c.in, got, c.want)
			}
		})
	}
	if x := bf16Round(float32(math.NaN())); !math.IsNaN(float64(x)) {
		t.Fatalf("NaN became %g", x)
	}
	// cvt.rn.bf16x2.f32 d, hi, lo keeps lo in the low half.
	if got, want := packBF16x2(1, -2), uint32(0xc000_3f80); got != want {
		t.Fatalf("packBF16x2(1, -2) = %#x, want %#x", got, want)
	}
}

// TestMMAGEMMIndexing runs the port of the mma kernels on shapes that
// cover edge tiles in every direction (rows, columns and k not multiples
// of the block tile, the staging pass or a BF16 word) with small integer
// inputs, which TF32 and BF16 hold exactly and whose products sum exactly
// in float32: each entry of C must be the exact product, and no entry
// outside rows x cols (C's padding columns, the rows below) is written.
func TestMMAGEMMIndexing(t *testing.T) {
	t.Parallel()
	for _, bf16 := range []bool{false, true} {
		for _, s := range []struct{ rows, cols, d int }{
			{1, 1, 1}, {16, 8, 8}, {64, 64, 32}, {64, 64, 64}, {65, 130, 33}, {100, 7, 100}, {3, 200, 64}, {130, 65, 7},
		} {
			t.Run(fmt.Sprintf("bf16=%v/%dx%dx%d", bf16, s.rows, s.cols, s.d), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(s.rows*1000+s.cols), uint64(s.d)))
				small := func(n int) []float32 {
					x := make([]float32, n)
					for i := range x {
						x[i] = float32(rng.IntN(7) - 3)
					}
					return x
				}
				a, b := small(s.rows*s.d), small(s.cols*s.d)
				ldc := s.cols + 3
				sentinel := float32(-12345)
				c := make([]float32, (s.rows+2)*ldc)
				for i := range c {
					c[i] = sentinel
				}
				mmaGEMM(bf16, a, b, s.rows, s.cols, s.d, c, ldc)
				for i := 0; i < s.rows+2; i++ {
					for j := 0; j < ldc; j++ {
						got := c[i*ldc+j]
						if i >= s.rows || j >= s.cols {
							if got != sentinel {
								t.Fatalf("C[%d][%d] outside %d x %d was written: %g", i, j, s.rows, s.cols, got)
							}
							continue
						}
						var want float32
						for k := 0; k < s.d; k++ {
							want += a[i*s.d+k] * b[j*s.d+k]
						}
						if got != want {
							t.Fatalf("C[%d][%d] = %g, want %g", i, j, got, want)
						}
					}
				}
			})
		}
	}
}

// TestMMAGEMMWithinBound: on random inputs, the port's products are off
// the float64 product of the unrounded inputs by at most the precision's
// Bound times the rows' norms, and off the float64 product of the rounded
// inputs by no more than float32 accumulation allows; so its inputs are
// rounded (TF32's error, then BF16's, is well above float32's) and
// nothing else is lost.
func TestMMAGEMMWithinBound(t *testing.T) {
	t.Parallel()
	const rows, cols, d = 70, 90, 300
	rng := rand.New(rand.NewPCG(5, 6))
	gauss := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	a, b := gauss(rows*d), gauss(cols*d)
	for _, c := range []struct {
		prec  Precision
		round func(float32) float32
	}{{TF32, tf32Round}, {BF16, bf16Round}} {
		t.Run(c.prec.String(), func(t *testing.T) {
			out := make([]float32, rows*cols)
			mmaGEMM(c.prec == BF16, a, b, rows, cols, d, out, cols)
			bound := c.prec.Bound(d)
			var worst, worstRounded float64
			for i := 0; i < rows; i++ {
				for j := 0; j < cols; j++ {
					var exact, rounded, na, nb, abs float64
					for k := 0; k < d; k++ {
						x, y := a[i*d+k], b[j*d+k]
						exact += float64(x) * float64(y)
						rx, ry := float64(c.round(x)), float64(c.round(y))
						rounded += rx * ry
						abs += math.Abs(rx * ry)
						na += float64(x) * float64(x)
						nb += float64(y) * float64(y)
					}
					got := float64(out[i*cols+j])
					norms := math.Sqrt(na * nb)
					if e := math.Abs(got-exact) / norms; e > bound {
						t.Fatalf("C[%d][%d] = %g, exact %g: off %.3g of the norms, bound %.3g", i, j, got, exact, e, bound)
					} else {
						worst = max(worst, e)
					}
					// Float32 accumulation of the rounded products, one
					// rounding per mma of 8 or 16 of them.
					if e := math.Abs(got-rounded) / abs; e > float64(d)*0x1p-24 {
						t.Fatalf("C[%d][%d] = %g, rounded inputs give %g: off %.3g of sum |products|", i, j, got, rounded, e)
					} else {
						worstRounded = max(worstRounded, e)
					}
				}
			}
			t.Logf("%s: worst error %.3g of the norms (bound %.3g); %.3g of sum |products| against the rounded inputs", c.prec, worst, bound, worstRounded)
		})
	}
}
