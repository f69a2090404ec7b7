package cuda

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// naiveCoeffs is Q_m^T W summed plainly in float64, with the bound
// sum_k |q_ki| |w_kc| that scales any order's rounding error.
func naiveCoeffs(q []float64, n, ld, m int, w []float64, r int) (h, bound []float64) {
	h, bound = make([]float64, m*r), make([]float64, m*r)
	for k := 0; k < n; k++ {
		for i := 0; i < m; i++ {
			for c := 0; c < r; c++ {
				h[i*r+c] += q[k*ld+i] * w[k*r+c]
				bound[i*r+c] += math.Abs(q[k*ld+i] * w[k*r+c])
			}
		}
	}
	return h, bound
}

// TestHostBasisProductsMatchFloat64 holds Host's port of basis.cu (Q^T W,
// W - Q H, W^T W and W U) to plain float64 sums, within L u sum |a| |b|
// (the bound of any summation order of length L), on row counts below,
// at and across basisChunk, and to the same bits at every worker count.
func TestHostBasisProductsMatchFloat64(t *testing.T) {
	for _, c := range []struct{ n, ld, m, r int }{
		{1, 1, 1, 1}, {300, 40, 33, 7}, {512, 64, 64, 32}, {1300, 96, 70, 32}, {2049, 128, 128, 17},
	} {
		q := randomBlock(c.n, c.ld, uint64(c.n))
		w := randomBlock(c.n, c.r, uint64(c.n)+1)
		var first []float64
		for _, workers := range []int{1, 3, 8} {
			buf, err := Host{}.NewBasisBuffers(c.n, c.ld, 32, workers)
			if err != nil {
				t.Fatal(err)
			}
			for j := 0; j < c.ld; j += 32 {
				cols := min(32, c.ld-j)
				blk := make([]float64, c.n*cols)
				for i := 0; i < c.n; i++ {
					copy(blk[i*cols:(i+1)*cols], q[i*c.ld+j:i*c.ld+j+cols])
				}
				if err := buf.SetColumns(j, cols, blk); err != nil {
					t.Fatal(err)
				}
			}
			if err := buf.SetBlock(w, c.r); err != nil {
				t.Fatal(err)
			}
			h := make([]float64, c.m*c.r)
			if err := buf.Coeffs(c.m, h); err != nil {
				t.Fatal(err)
			}
			if err := buf.Subtract(c.m); err != nil {
				t.Fatal(err)
			}
			got := make([]float64, c.n*c.r)
			if err := buf.TakeBlock(got); err != nil {
				t.Fatal(err)
			}
			want, bound := naiveCoeffs(q, c.n, c.ld, c.m, w, c.r)
			for e := range want {
				if d := math.Abs(h[e] - want[e]); d > float64(c.n)*0x1p-53*bound[e] {
					t.Fatalf("%+v: h[%d] = %v, float64 sums %v (bound %v)", c, e, h[e], want[e], bound[e])
				}
			}
			// W - Q H against the same in plain float64 with Host's H.
			for k := 0; k < c.n; k++ {
				for col := 0; col < c.r; col++ {
					var s, b float64
					for i := 0; i < c.m; i++ {
						s += q[k*c.ld+i] * h[i*c.r+col]
						b += math.Abs(q[k*c.ld+i] * h[i*c.r+col])
					}
					want := w[k*c.r+col] - s
					if d := math.Abs(got[k*c.r+col] - want); d > float64(c.m+1)*0x1p-53*(b+math.Abs(w[k*c.r+col])) {
						t.Fatalf("%+v: W - Q H at (%d, %d) = %v, float64 %v", c, k, col, got[k*c.r+col], want)
					}
				}
			}
			// W^T W, and W U for U the first k columns of H's rows.
			k := max(1, c.r/2)
			if err := buf.SetBlock(w, c.r); err != nil {
				t.Fatal(err)
			}
			g := make([]float64, c.r*c.r)
			if err := buf.BlockGram(g); err != nil {
				t.Fatal(err)
			}
			u := make([]float64, c.r*k)
			for i := 0; i < c.r; i++ {
				for j := 0; j < k; j++ {
					u[i*k+j] = h[(i%c.m)*c.r+j]
				}
			}
			y := make([]float64, c.n*k)
			if err := buf.BlockTimes(u, k, y); err != nil {
				t.Fatal(err)
			}
			buf.Close()
			wantG, boundG := naiveCoeffs(w, c.n, c.r, c.r, w, c.r)
			for e := range wantG {
				if d := math.Abs(g[e] - wantG[e]); d > float64(c.n)*0x1p-53*boundG[e] {
					t.Fatalf("%+v: W^T W [%d] = %v, float64 sums %v", c, e, g[e], wantG[e])
				}
			}
			for row := 0; row < c.n; row++ {
				for j := 0; j < k; j++ {
					var s, b float64
					for i := 0; i < c.r; i++ {
						s += w[row*c.r+i] * u[i*k+j]
						b += math.Abs(w[row*c.r+i] * u[i*k+j])
					}
					if d := math.Abs(y[row*k+j] - s); d > float64(c.r)*0x1p-53*b {
						t.Fatalf("%+v: W U at (%d, %d) = %v, float64 %v", c, row, j, y[row*k+j], s)
					}
				}
			}
			res := slices.Concat(h, got, g, y)
			if first == nil {
				first = res
			} else if !slices.Equal(res, first) {
				t.Fatalf("%+v: %d workers give other bits than 1", c, workers)
			}
		}
	}
}

// basisTol is how far the estimate with the device basis may be from the
// host basis's, relative: the two bases differ by rounding (another
// summation order), but the estimate is not smooth in rounding: which
// directions orthonormalBlock keeps near its floor, and which Ritz pairs
// fall under ritzTol, can flip. Seen here: up to 4.3e-7 at low rank,
// 7e-8 clustered; the host basis is itself 8e-7 from the CPU operator's
// estimate at low rank (float32 products in another order), so against
// the CPU the tests allow ten times this, still ten times inside the
// issue's 1e-4.
const basisTol = 1e-6

// estimateOn is VendiEstimate through a JointKernel on dev.
func estimateOn(t *testing.T, dev GramDevice, v, tx *kernels.Matrix, opt JointKernelOptions, q float64, cfg kernels.SLQConfig) kernels.Vendi {
	t.Helper()
	ctx := context.Background()
	k, err := NewJointKernel(ctx, dev, v, tx, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	got, err := kernels.VendiEstimate(ctx, k, q, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestJointKernelDeviceBasisMatchesHostBasis: the estimate with the basis
// on the device (Host's port of basis.cu) against the same operator with
// the estimator's own host basis, and against the CPU operator's, at
// low rank (the basis leaves the Krylov space early and its blocks
// narrow), clustered, and n dividing neither the tiles nor the chunks;
// the device basis gives the same bits at 1 and 4 workers.
func TestJointKernelDeviceBasisMatchesHostBasis(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		v, t *kernels.Matrix
		edge int
		cfg  kernels.SLQConfig
	}{
		{"low rank 1000 x (4 x 4)", cone(21, 1000, 4, 3), cone(22, 1000, 4, 2), 256, kernels.SLQConfig{Seed: 1}},
		{"clustered 1500 x (48 x 32)", cone(23, 1500, 48, 5), cone(24, 1500, 32, 4), 256, kernels.SLQConfig{Seed: 2}},
		{"1301 x (40 x 24), tiles of 300", cone(25, 1301, 40, 30), cone(26, 1301, 24, 50), 300, kernels.SLQConfig{Seed: 3, Probes: 24, Steps: 12}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cpuOp, err := kernels.FormJointKernel(ctx, c.v, c.t, nil, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []float64{1, math.Inf(1)} {
				cpu, err := kernels.VendiEstimate(ctx, cpuOp, q, c.cfg)
				if err != nil {
					t.Fatal(err)
				}
				host := estimateOn(t, Host{Edge: c.edge}, c.v, c.t, JointKernelOptions{HostBasis: true}, q, c.cfg)
				dev := estimateOn(t, Host{Edge: c.edge}, c.v, c.t, JointKernelOptions{Workers: 1}, q, c.cfg)
				if q == 1 {
					if dev4 := estimateOn(t, Host{Edge: c.edge}, c.v, c.t, JointKernelOptions{Workers: 4}, q, c.cfg); dev4 != dev {
						t.Errorf("q=%v: %+v at 4 workers, %+v at 1", q, dev4, dev)
					}
				}
				dh := math.Abs(dev.Score-host.Score) / host.Score
				dc := math.Abs(dev.Score-cpu.Score) / cpu.Score
				t.Logf("q=%v: device basis %.12g, host basis %.12g (%.2g), CPU %.12g (%.2g)", q, dev.Score, host.Score, dh, cpu.Score, dc)
				if dh > basisTol || dc > 10*basisTol {
					t.Errorf("q=%v: device basis %.12g against the host basis's %.12g (%.2g relative, want <= %g) and the CPU's %.12g (%.2g, want <= %g)",
						q, dev.Score, host.Score, dh, basisTol, cpu.Score, dc, 10*basisTol)
				}
			}
		})
	}
}

// TestJointKernelBasisFallsBackWithOneLine: a device without the memory
// for the basis gives the host basis's estimate bit for bit and says so
// in one line; HostBasis says nothing.
func TestJointKernelBasisFallsBackWithOneLine(t *testing.T) {
	t.Parallel()
	v, tx := cone(27, 700, 24, 6), cone(28, 700, 16, 9)
	cfg := kernels.SLQConfig{Seed: 4, Probes: 16, Steps: 8}
	want := estimateOn(t, Host{Edge: 128}, v, tx, JointKernelOptions{HostBasis: true}, 1, cfg)
	for _, bytesFree := range []int64{-1, basisBytes(700, 128, 16) - 1} {
		var log bytes.Buffer
		got := estimateOn(t, Host{Edge: 128, BasisBytes: bytesFree}, v, tx, JointKernelOptions{Log: &log}, 1, cfg)
		if got != want {
			t.Errorf("%d bytes free: %+v, the host basis's %+v", bytesFree, got, want)
		}
		if n := strings.Count(log.String(), "\n"); n != 1 || !strings.Contains(log.String(), "stays on the host") {
			t.Errorf("%d bytes free: log %q, want one line saying the basis stays on the host", bytesFree, log.String())
		}
	}
	var log bytes.Buffer
	estimateOn(t, Host{Edge: 128}, v, tx, JointKernelOptions{Log: &log}, 1, cfg)
	estimateOn(t, Host{Edge: 128, BasisBytes: -1}, v, tx, JointKernelOptions{Log: &log, HostBasis: true}, 1, cfg)
	if log.Len() != 0 {
		t.Errorf("log %q with the basis on the device or asked on the host, want nothing", log.String())
	}
}

// faultyBasis fails the fail-th product (counting Coeffs and Subtract
// calls, 1-based; 0 never) or the allocation (allocFails) and counts the
// buffer sets not yet freed.
type faultyBasis struct {
	Host
	fail       int
	allocFails bool
	calls      *int
	live       *int
}

func (d faultyBasis) NewBasisBuffers(n, cols, block, workers int) (BasisBuffers, error) {
	if d.allocFails {
		return nil, errors.New("cuMemAlloc: out of memory")
	}
	b, err := d.Host.NewBasisBuffers(n, cols, block, workers)
	if err != nil {
		return nil, err
	}
	*d.live++
	return faultyBuffers{b, d}, nil
}

type faultyBuffers struct {
	BasisBuffers
	d faultyBasis
}

func (b faultyBuffers) step() error {
	if *b.d.calls++; *b.d.calls == b.d.fail {
		return errors.New("launch failed")
	}
	return nil
}

func (b faultyBuffers) Coeffs(m int, h []float64) error {
	if err := b.step(); err != nil {
		return err
	}
	return b.BasisBuffers.Coeffs(m, h)
}

func (b faultyBuffers) Subtract(m int) error {
	if err := b.step(); err != nil {
		return err
	}
	return b.BasisBuffers.Subtract(m)
}

func (b faultyBuffers) Close() error { *b.d.live--; return b.BasisBuffers.Close() }

// TestJointKernelBasisErrorsFreeDeviceMemory: a product failing mid-way
// through the estimate (the first, one in a later step, the final Q^T
// Omega) fails the estimate and leaves no basis allocated; a failed
// allocation falls back to the host.
func TestJointKernelBasisErrorsFreeDeviceMemory(t *testing.T) {
	ctx := context.Background()
	v, tx := cone(29, 400, 16, 4), cone(30, 400, 8, 4)
	cfg := kernels.SLQConfig{Seed: 5, Probes: 8, Steps: 4}
	// 4 steps of 2 passes of 2 products each (this kernel's blocks are well
	// conditioned, so the conditional third pass never runs), then Coords:
	// 4*4 + 1 = 17 products.
	for _, fail := range []int{1, 9, 17} {
		var calls, live int
		k, err := NewJointKernel(ctx, faultyBasis{Host: Host{Edge: 64}, fail: fail, calls: &calls, live: &live}, v, tx, nil, JointKernelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kernels.VendiEstimate(ctx, k, 1, cfg); err == nil || !strings.Contains(err.Error(), "launch failed") {
			t.Errorf("product %d failing: estimate error %v", fail, err)
		}
		if live != 0 {
			t.Errorf("product %d failing: %d bases left allocated", fail, live)
		}
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var calls, live int
	var log bytes.Buffer
	want := estimateOn(t, Host{Edge: 64}, v, tx, JointKernelOptions{HostBasis: true}, 1, cfg)
	got := estimateOn(t, faultyBasis{Host: Host{Edge: 64}, allocFails: true, calls: &calls, live: &live}, v, tx, JointKernelOptions{Log: &log}, 1, cfg)
	if got != want || !strings.Contains(log.String(), "out of memory") {
		t.Errorf("allocation failing: %+v (log %q), the host basis's %+v", got, log.String(), want)
	}
	calls = 0
	estimateOn(t, faultyBasis{Host: Host{Edge: 64}, calls: &calls, live: &live}, v, tx, JointKernelOptions{}, 1, cfg)
	if calls != 17 || live != 0 {
		t.Errorf("%d products and %d bases left after an estimate, want 17 and 0", calls, live)
	}
}
