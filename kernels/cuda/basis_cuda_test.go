//go:build cuda

package cuda

import (
	"math"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// basisRun is one pass of the basis's products on buf: Q's columns set
// block by block from q (n x ld), H = Q_m^T W, W - Q_m H.
func basisRun(t *testing.T, buf BasisBuffers, q []float64, n, ld, m int, w []float64, r int) (h, wq []float64) {
	t.Helper()
	for j := 0; j < ld; j += 32 {
		cols := min(32, ld-j)
		blk := make([]float64, n*cols)
		for i := 0; i < n; i++ {
			copy(blk[i*cols:(i+1)*cols], q[i*ld+j:i*ld+j+cols])
		}
		if err := buf.SetColumns(j, cols, blk); err != nil {
			t.Fatal(err)
		}
	}
	if err := buf.SetBlock(w, r); err != nil {
		t.Fatal(err)
	}
	h, wq = make([]float64, m*r), make([]float64, n*r)
	if err := buf.Coeffs(m, h); err != nil {
		t.Fatal(err)
	}
	if err := buf.Subtract(m); err != nil {
		t.Fatal(err)
	}
	if err := buf.TakeBlock(wq); err != nil {
		t.Fatal(err)
	}
	// The orthonormalisation's products, appended to wq: W^T W, then
	// W U for U basisU(r).
	if err := buf.SetBlock(w, r); err != nil {
		t.Fatal(err)
	}
	g := make([]float64, r*r)
	if err := buf.BlockGram(g); err != nil {
		t.Fatal(err)
	}
	u, k := basisU(r)
	y := make([]float64, n*k)
	if err := buf.BlockTimes(u, k, y); err != nil {
		t.Fatal(err)
	}
	return h, slices.Concat(wq, g, y)
}

// basisU is the r x k coefficients (k = r - 1, at least 1) the tests
// combine a block by.
func basisU(r int) ([]float64, int) {
	k := max(1, r-1)
	return randomBlock(r, k, 99), k
}

// TestGPUBasisMatchesHostPort holds the GPU's basis products to Host's
// port of basis.cu: the own kernels bit for bit; cuBLAS's Dgemm, which
// sums in an order of its own (blocked, and on Hopper through the FP64
// tensor cores), within the bound any order of an inner product of length
// L keeps to, L u sum |a_l b_l| (u = 2^-53), taken for both sides: for H
// = Q^T W and W^T W, L = n; for W U, L = r; for W - Q H, L = m + 1,
// plus what the two H's difference carries through Q.
func TestGPUBasisMatchesHostPort(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  OpenOptions
	}{{"cuBLAS", OpenOptions{}}, {"own kernels", OpenOptions{NoCUBLAS: true}}} {
		t.Run(c.name, func(t *testing.T) {
			g := openOrSkip(t, c.opt)
			for _, s := range []struct{ n, ld, m, r int }{{1, 1, 1, 1}, {700, 64, 40, 7}, {5000, 512, 512, 32}, {60001, 96, 65, 33}} {
				q := randomBlock(s.n, s.ld, uint64(s.n))
				w := randomBlock(s.n, s.r, uint64(s.n)+7)
				host, err := Host{}.NewBasisBuffers(s.n, s.ld, 64, 2)
				if err != nil {
					t.Fatal(err)
				}
				wantH, wantW := basisRun(t, host, q, s.n, s.ld, s.m, w, s.r)
				host.Close()
				dev, err := g.NewBasisBuffers(s.n, s.ld, 64, 2)
				if err != nil {
					t.Fatal(err)
				}
				gotH, gotW := basisRun(t, dev, q, s.n, s.ld, s.m, w, s.r)
				if err := dev.Close(); err != nil {
					t.Fatal(err)
				}
				if c.opt.NoCUBLAS {
					if !slices.Equal(gotH, wantH) || !slices.Equal(gotW, wantW) {
						t.Fatalf("%+v: the own kernels differ from their Go port", s)
					}
					continue
				}
				_, bound := naiveCoeffs(q, s.n, s.ld, s.m, w, s.r)
				for e := range wantH {
					if d := math.Abs(gotH[e] - wantH[e]); d > 2*float64(s.n)*0x1p-53*bound[e] {
						t.Fatalf("%+v: cuBLAS's H[%d] %v, the port's %v (bound %v)", s, e, gotH[e], wantH[e], bound[e])
					}
				}
				extra := len(gotW) - s.n*s.r
				gotW, gotX, wantX := gotW[:s.n*s.r], gotW[s.n*s.r:], wantW[s.n*s.r:]
				wantW = wantW[:s.n*s.r]
				// W^T W and W U: inner products of length n and r.
				_, boundG := naiveCoeffs(w, s.n, s.r, s.r, w, s.r)
				for e := 0; e < extra; e++ {
					var tol float64
					if e < s.r*s.r {
						tol = 2 * float64(s.n) * 0x1p-53 * boundG[e]
					} else {
						u, k := basisU(s.r)
						row, j := (e-s.r*s.r)/k, (e-s.r*s.r)%k
						for i := 0; i < s.r; i++ {
							tol += math.Abs(w[row*s.r+i] * u[i*k+j])
						}
						tol *= 2 * float64(s.r) * 0x1p-53
					}
					if d := math.Abs(gotX[e] - wantX[e]); d > tol {
						t.Fatalf("%+v: cuBLAS's orthonormalisation product [%d] %v, the port's %v", s, e, gotX[e], wantX[e])
					}
				}
				// W - Q H: each side within (m+1) u (|w| + sum |q| |h|) of
				// its exact value with its own H, and the two H differ by
				// dH, which Q carries over as sum |q| |dH|.
				for k := 0; k < s.n; k++ {
					for col := 0; col < s.r; col++ {
						b := 2 * math.Abs(w[k*s.r+col])
						var carried float64
						for i := 0; i < s.m; i++ {
							qi := math.Abs(q[k*s.ld+i])
							b += qi * (math.Abs(wantH[i*s.r+col]) + math.Abs(gotH[i*s.r+col]))
							carried += qi * math.Abs(gotH[i*s.r+col]-wantH[i*s.r+col])
						}
						if d := math.Abs(gotW[k*s.r+col] - wantW[k*s.r+col]); d > float64(s.m+1)*0x1p-53*b+carried {
							t.Fatalf("%+v: cuBLAS's W - Q H at (%d, %d) %v, the port's %v", s, k, col, gotW[k*s.r+col], wantW[k*s.r+col])
						}
					}
				}
			}
		})
	}
}

// TestGPUJointKernelVendiDeviceBasis: the estimate with the basis on the
// GPU against Host's (K and the basis on the host, in the same orders)
// within basisTol, on both GEMM paths.
func TestGPUJointKernelVendiDeviceBasis(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  OpenOptions
	}{{"cuBLAS", OpenOptions{}}, {"own kernels", OpenOptions{NoCUBLAS: true}}} {
		t.Run(c.name, func(t *testing.T) {
			g := openOrSkip(t, c.opt)
			v, tx := cone(41, 3000, 96, 20), cone(42, 3000, 64, 30)
			want := estimateOn(t, Host{Edge: 1024}, v, tx, JointKernelOptions{}, 1, kernels.SLQConfig{Seed: 6})
			got := estimateOn(t, g, v, tx, JointKernelOptions{}, 1, kernels.SLQConfig{Seed: 6})
			if d := math.Abs(got.Score-want.Score) / want.Score; d > basisTol {
				t.Fatalf("GPU %.12g, Host %.12g: %.2g relative, want <= %g", got.Score, want.Score, d, basisTol)
			}
		})
	}
}
