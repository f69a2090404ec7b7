package cuda

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// cone is kernels.ConeRows drawn from seed's stream 3, as the kernels
// package's own tests draw theirs.
func cone(seed uint64, n, d, nc int) *kernels.Matrix {
	return kernels.ConeRows(rand.New(rand.NewPCG(seed, 3)), n, d, nc)
}

func randomBlock(n, cols int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*cols)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func relDiff(got, want []float64) float64 {
	var num, den float64
	for i := range want {
		num = max(num, math.Abs(got[i]-want[i]))
		den = max(den, math.Abs(want[i]))
	}
	return num / den
}

// TestJointKernelProductsMatchCPU holds the device operator's products to
// the CPU operator's over tile edges that do and do not divide n, K fully,
// partly or not at all resident, and weighted items.
func TestJointKernelProductsMatchCPU(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 700
	v := cone(1, n, 40, 9)
	tx := cone(2, n, 24, 13)
	w := make([]float64, n)
	for i := range w {
		w[i] = float64(1 + i%5)
	}
	panel := func(edge int) int64 { return int64(edge) * n * 4 }
	for _, c := range []struct {
		name    string
		t       *kernels.Matrix
		w       []float64
		edge    int
		memory  int64
		workers int
		want    int // rows of K resident
	}{
		{"all of K resident, edges dividing nothing", tx, nil, 128, 0, 2, n},
		{"two panels resident, the rest formed on the fly", tx, nil, 128, 2*panel(128) + 7, 3, 256},
		{"nothing resident: every tile formed per product", tx, nil, 100, -1, 2, 0},
		{"weighted items", tx, w, 256, 0, 1, n},
		{"the single kernel V V^T", nil, nil, 96, panel(96), 2, 96},
		{"one tile covers K", tx, nil, 1024, 0, 2, n},
	} {
		t.Run(c.name, func(t *testing.T) {
			ref, err := kernels.NewJointKernel(v, c.t, c.w, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			dev := Host{Edge: c.edge}
			budget := c.memory
			if budget > 0 {
				dev.Memory, budget = budget, 0
			}
			k, err := NewJointKernel(ctx, dev, v, c.t, c.w, JointKernelOptions{Workers: c.workers, KernelBytes: budget})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			if got := k.Resident(); got != c.want {
				t.Errorf("%d rows of K resident, want %d", got, c.want)
			}
			for _, cols := range []int{1, 32} {
				x := randomBlock(n, cols, uint64(cols))
				want, got := make([]float64, n*cols), make([]float64, n*cols)
				if err := ref.Apply(ctx, x, cols, want); err != nil {
					t.Fatal(err)
				}
				if err := k.Apply(ctx, x, cols, got); err != nil {
					t.Fatal(err)
				}
				if d := relDiff(got, want); d > 1e-5 {
					t.Errorf("%d columns: products differ by %.3g relative, want <= 1e-5", cols, d)
				}
			}
			tr := ref.(interface{ Trace() float64 }).Trace()
			if got := k.Trace(); math.Abs(got-tr) > 1e-12*math.Abs(tr) {
				t.Errorf("trace %v, want %v", got, tr)
			}
		})
	}
}

// TestJointKernelSameAtAnyWorkerCountAndResidency: the products are the
// same bits whatever the number of workers and however much of K is held.
func TestJointKernelSameAtAnyWorkerCountAndResidency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n, cols = 500, 8
	v, tx := cone(3, n, 32, 7), cone(4, n, 16, 5)
	x := randomBlock(n, cols, 9)
	var first []float64
	for _, c := range []struct {
		workers int
		bytes   int64
	}{{1, 0}, {4, 0}, {3, -1}, {2, 128 * n * 4 * 2}} {
		k, err := NewJointKernel(ctx, Host{Edge: 128}, v, tx, nil, JointKernelOptions{Workers: c.workers, KernelBytes: c.bytes})
		if err != nil {
			t.Fatal(err)
		}
		y := make([]float64, n*cols)
		err = k.Apply(ctx, x, cols, y)
		k.Close()
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = y
		} else if !slices.Equal(y, first) {
			t.Fatalf("%d workers, %d bytes of K: products differ from the first run's", c.workers, c.bytes)
		}
	}
}

// checkVendi compares the estimate through the device operator with the
// CPU's (kernels.FormJointKernel) for the same probes: within 1e-4
// relative, the tolerance.
func checkVendi(t *testing.T, n, dv, dt int, dev Host, opt JointKernelOptions) {
	t.Helper()
	ctx := context.Background()
	v, tx := cone(uint64(n), n, dv, 40), cone(uint64(n)+1, n, dt, 60)
	cfg := kernels.SLQConfig{Seed: 5}
	cpuOp, err := kernels.FormJointKernel(ctx, v, tx, nil, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := kernels.VendiEstimate(ctx, cpuOp, 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewJointKernel(ctx, dev, v, tx, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	got, err := kernels.VendiEstimate(ctx, k, 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(got.Score-want.Score) / want.Score; d > 1e-4 {
		t.Fatalf("n = %d: device operator's estimate %.8g, the CPU's %.8g: %.3g relative, want <= 1e-4", n, got.Score, want.Score, d)
	} else {
		t.Logf("n = %d: %.8g against the CPU's %.8g (%.2g relative), %d of %d rows resident", n, got.Score, want.Score, d, k.Resident(), n)
	}
}

func TestJointKernelVendiMatchesCPU(t *testing.T) {
	t.Parallel()
	t.Run("K resident", func(t *testing.T) { checkVendi(t, 1500, 48, 32, Host{Edge: 256}, JointKernelOptions{}) })
	t.Run("K formed per product", func(t *testing.T) {
		checkVendi(t, 1500, 48, 32, Host{Edge: 300}, JointKernelOptions{KernelBytes: -1, Workers: 3})
	})
}

// TestJointKernelVendiAtPoolScale is the n = 8,192 (a few minutes
// on 2 cores; the device check runs it on the GPU at 60,000).
func TestJointKernelVendiAtPoolScale(t *testing.T) {
	t.Parallel()
	if os.Getenv("VIDSCREEN_LONG_TESTS") == "" {
		t.Skip("set VIDSCREEN_LONG_TESTS=1 to compare the estimates at n = 8,192")
	}
	// Half of K resident: both kinds of row panel take part.
	const n = 8192
	checkVendi(t, n, 128, 96, Host{Edge: 1024, Memory: 4 * 1024 * n * 4}, JointKernelOptions{})
}

// faultyGram fails where told and counts what it still holds, so every
// error path is seen to free the device's memory.
type faultyGram struct {
	Host
	failUpload, failPanel  int // fail the n-th (1-based); 0 never
	failGram               int
	uploads, panels, grams *int
	live                   *int // uploads, panels and workers not yet freed
	opens                  *int // workers opened; nil: not counted
}

type countedPanel struct {
	Panel
	live *int
}

func (p countedPanel) Free() error { *p.live--; return nil }

func (d faultyGram) Upload(m *kernels.Matrix) (Resident, error) {
	if *d.uploads++; *d.uploads == d.failUpload {
		return nil, errors.New("out of device memory")
	}
	r, _ := d.Host.Upload(m)
	*d.live++
	return countedResident{r, d.live}, nil
}

func (d faultyGram) AllocPanel(rows, cols int) (Panel, error) {
	if *d.panels++; *d.panels == d.failPanel {
		return nil, errors.New("out of device memory")
	}
	p, err := d.Host.AllocPanel(rows, cols)
	*d.live++
	return countedPanel{p, d.live}, err
}

func (d faultyGram) NewGramWorker(n, maxCols int) (GramWorker, error) {
	w, err := d.Host.NewGramWorker(n, maxCols)
	*d.live++
	if d.opens != nil {
		*d.opens++
	}
	return faultyGramWorker{w, d}, err
}

func (w faultyGramWorker) Close() error { *w.d.live--; return w.GramWorker.Close() }

type faultyGramWorker struct {
	GramWorker
	d faultyGram
}

func (w faultyGramWorker) Gram(v, t Resident, r0, rows, c0, cols int, dst Panel, at int) error {
	if *w.d.grams++; *w.d.grams == w.d.failGram {
		return errors.New("launch failed")
	}
	if p, ok := dst.(countedPanel); ok {
		dst = p.Panel
	}
	unwrap := func(r Resident) Resident {
		if c, ok := r.(countedResident); ok {
			return c.Resident
		}
		return r
	}
	return w.GramWorker.Gram(unwrap(v), unwrap(t), r0, rows, c0, cols, dst, at)
}

func (w faultyGramWorker) MulAdd(src Panel, rows, at, wd, x0 int) error {
	if p, ok := src.(countedPanel); ok {
		src = p.Panel
	}
	return w.GramWorker.MulAdd(src, rows, at, wd, x0)
}

func TestJointKernelErrorsFreeDeviceMemory(t *testing.T) {
	ctx := context.Background()
	v, tx := cone(5, 300, 16, 4), cone(6, 300, 8, 4)
	for _, c := range []struct {
		name                string
		upload, panel, gram int
		failsInConstruction bool
	}{
		{"the text upload fails", 2, 0, 0, true},
		{"forming a panel fails", 0, 0, 3, true},
		{"a tile formed on the fly fails", 0, 2, 9, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var uploads, panels, grams, live int
			dev := faultyGram{Host: Host{Edge: 64}, failUpload: c.upload, failPanel: c.panel, failGram: c.gram,
				uploads: &uploads, panels: &panels, grams: &grams, live: &live}
			k, err := NewJointKernel(ctx, dev, v, tx, nil, JointKernelOptions{})
			if c.failsInConstruction {
				if err == nil {
					t.Fatal("NewJointKernel succeeded on a failing device")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if k.Resident() != 64 {
					t.Errorf("%d rows resident after the second panel failed, want the first panel's 64", k.Resident())
				}
				y := make([]float64, 300*4)
				if err := k.Apply(ctx, randomBlock(300, 4, 1), 4, y); err == nil {
					t.Fatal("Apply succeeded on a failing device")
				}
				if err := k.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if live != 0 {
				t.Errorf("%d allocations left on the device (%v)", live, err)
			}
		})
	}
}

// TestJointKernelReusesItsWorkers: the products of an estimate share the
// workers (a stream and two tiles each on a GPU) instead of opening them
// per product, and Close frees them.
func TestJointKernelReusesItsWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 400
	var uploads, panels, grams, live, opens int
	dev := faultyGram{Host: Host{Edge: 64}, uploads: &uploads, panels: &panels, grams: &grams, live: &live, opens: &opens}
	k, err := NewJointKernel(ctx, dev, cone(7, n, 16, 4), cone(8, n, 8, 4), nil, JointKernelOptions{Workers: 3, KernelBytes: 3 * 64 * n * 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kernels.VendiEstimate(ctx, k, 1, kernels.SLQConfig{Probes: 8, Steps: 6}); err != nil {
		t.Fatal(err)
	}
	if opens > 3 {
		t.Errorf("%d workers opened for an estimate on 3", opens)
	}
	y := make([]float64, n*65)
	if err := k.Apply(ctx, make([]float64, n*65), 65, y); err == nil {
		t.Error("a block wider than MaxCols was taken")
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if live != 0 {
		t.Errorf("%d allocations left after Close", live)
	}
}
