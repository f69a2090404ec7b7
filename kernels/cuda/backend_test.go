package cuda

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// plantedRows returns n unit rows of d columns in which groups of rows are
// near copies of each other, so a join at 0.9 finds pairs across tiles.
func plantedRows(n, d int, seed uint64) *kernels.Matrix {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := kernels.NewMatrix(n, d)
	for i := 0; i < n; i++ {
		row := m.Row(i)
		if i > 0 && rng.IntN(3) == 0 {
			src := m.Row(rng.IntN(i))
			for k := range row {
				row[k] = src[k] + float32(rng.NormFloat64()*0.05)
			}
		} else {
			for k := range row {
				row[k] = float32(rng.NormFloat64())
			}
		}
	}
	kernels.NormalizeRows(m)
	return m
}

// nearCopies returns n rows of which every other is a noisy copy of a row
// of a, so a join of a with it finds pairs.
func nearCopies(a *kernels.Matrix, n int, seed uint64) *kernels.Matrix {
	rng := rand.New(rand.NewPCG(seed, 9))
	m := kernels.NewMatrix(n, a.Cols)
	for i := 0; i < n; i++ {
		row := m.Row(i)
		src := a.Row(rng.IntN(a.Rows))
		for k := range row {
			row[k] = float32(rng.NormFloat64())
			if i%2 == 0 {
				row[k] = src[k] + 0.05*row[k]
			}
		}
	}
	kernels.NormalizeRows(m)
	return m
}

func collect(t *testing.T, join func(emit func([]kernels.Pair) error) error) []kernels.Pair {
	t.Helper()
	var out []kernels.Pair
	if err := join(func(ps []kernels.Pair) error { out = append(out, ps...); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestThresholdJoinMatchesCPU(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := plantedRows(700, 48, 1)
	b := nearCopies(a, 333, 2)
	for _, c := range []struct {
		name       string
		rows, cols int
		workers    int
		other      *kernels.Matrix
		tau        float32
	}{
		{"a self-join over many small tiles finds the CPU's pairs", 64, 96, 3, nil, 0.9},
		{"a self-join with tiles that do not divide the rows", 100, 77, 2, nil, 0.8},
		{"a self-join in one tile", 1024, 4096, 1, nil, 0.9},
		{"a join of two matrices", 50, 64, 2, b, 0.85},
		{"a threshold below every product keeps every pair", 128, 128, 2, b, -2},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := collect(t, func(emit func([]kernels.Pair) error) error {
				return kernels.ThresholdJoin(ctx, a, c.other, c.tau, kernels.Options{}, emit)
			})
			be := &Backend{Device: Host{Rows: c.rows, Cols: c.cols}, Workers: c.workers}
			got := collect(t, func(emit func([]kernels.Pair) error) error {
				return be.ThresholdJoin(ctx, a, c.other, c.tau, kernels.Options{}, emit)
			})
			if len(want) == 0 {
				t.Fatal("the reference join found no pairs: the case tests nothing")
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d pairs, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(x, y []kernels.Pair) int {
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			return i
		}
	}
	return min(len(x), len(y))
}

func TestTopKMatchesCPU(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	x := plantedRows(600, 32, 3)
	q := plantedRows(130, 32, 4)
	for _, c := range []struct {
		name       string
		rows, cols int
		k          int
		earlier    bool
	}{
		{"top-k over many tiles", 40, 64, 5, false},
		{"top-k with k larger than a tile", 64, 16, 40, false},
		{"top-k with k larger than the rows", 64, 128, 700, false},
		{"earlier rows only, over many tiles", 50, 70, 4, true},
		{"earlier rows only with k above the first rows' history", 128, 256, 30, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			be := &Backend{Device: Host{Rows: c.rows, Cols: c.cols}, Workers: 2}
			var want, got *kernels.Neighbours
			var err error
			if c.earlier {
				if want, err = kernels.TopKEarlier(ctx, x, c.k, kernels.Options{}); err != nil {
					t.Fatal(err)
				}
				got, err = be.TopKEarlier(ctx, x, c.k, kernels.Options{})
			} else {
				if want, err = kernels.TopK(ctx, q, x, c.k, kernels.Options{}); err != nil {
					t.Fatal(err)
				}
				got, err = be.TopK(ctx, q, x, c.k, kernels.Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Index, want.Index) || !slices.Equal(got.Sim, want.Sim) {
				for i := range want.Index {
					if got.Index[i] != want.Index[i] || got.Sim[i] != want.Sim[i] {
						t.Fatalf("entry %d (query %d rank %d): got %d (%v), want %d (%v)", i, i/c.k, i%c.k, got.Index[i], got.Sim[i], want.Index[i], want.Sim[i])
					}
				}
			}
		})
	}
}

// faultyDevice wraps Host and fails where told, counting what is still
// allocated, so the error paths are seen to free everything.
type faultyDevice struct {
	Host
	failUpload int // fail the n-th upload (1-based); 0 never
	failWorker bool
	failAt     int // fail the n-th Product; 0 never
	uploads    int
	live       *int
	products   *int
}

type countedResident struct {
	Resident
	live *int
}

func (r countedResident) Free() error { *r.live--; return nil }

func (d *faultyDevice) Upload(m *kernels.Matrix) (Resident, error) {
	d.uploads++
	if d.uploads == d.failUpload {
		return nil, errors.New("out of device memory")
	}
	r, _ := d.Host.Upload(m)
	*d.live++
	return countedResident{r, d.live}, nil
}

type faultyWorker struct {
	Worker
	d *faultyDevice
}

func (w faultyWorker) Product(t Tile) error {
	*w.d.products++
	if *w.d.products == w.d.failAt {
		return errors.New("launch failed")
	}
	t.A, t.B = t.A.(countedResident).Resident, t.B.(countedResident).Resident
	return w.Worker.Product(t)
}

func (d *faultyDevice) NewWorker() (Worker, error) {
	if d.failWorker {
		return nil, errors.New("no stream")
	}
	w, err := d.Host.NewWorker()
	return faultyWorker{w, d}, err
}

func TestBackendErrorsFreeDeviceMemory(t *testing.T) {
	ctx := context.Background()
	a := plantedRows(300, 16, 5)
	b := plantedRows(200, 16, 6)
	for _, c := range []struct {
		name string
		dev  faultyDevice
	}{
		{"the second upload fails", faultyDevice{failUpload: 2}},
		{"no worker opens", faultyDevice{failWorker: true}},
		{"a product fails midway", faultyDevice{failAt: 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, op := range []struct {
				name string
				run  func(be *Backend) error
			}{
				{"the join", func(be *Backend) error {
					return be.ThresholdJoin(ctx, a, b, 0.5, kernels.Options{}, func([]kernels.Pair) error { return nil })
				}},
				{"top-k", func(be *Backend) error {
					_, err := be.TopK(ctx, a, b, 3, kernels.Options{})
					return err
				}},
			} {
				live, products := 0, 0
				dev := c.dev
				dev.Host = Host{Rows: 32, Cols: 32}
				dev.live, dev.products = &live, &products
				err := op.run(&Backend{Device: &dev})
				if err == nil {
					t.Fatalf("%s succeeded on a failing device", op.name)
				}
				if live != 0 {
					t.Errorf("%s: %d matrices left on the device after %v", op.name, live, err)
				}
			}
		})
	}
}

func TestThresholdJoinStopsOnEmitError(t *testing.T) {
	t.Parallel()
	a := plantedRows(400, 16, 8)
	stop := errors.New("stop")
	be := &Backend{Device: Host{Rows: 16, Cols: 64}, Workers: 3}
	calls := 0
	err := be.ThresholdJoin(context.Background(), a, nil, 0.5, kernels.Options{}, func([]kernels.Pair) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("got %v after %d calls, want the emit error after one", err, calls)
	}
}

func TestTF32BoundCoversInputRounding(t *testing.T) {
	t.Parallel()
	// A unit-row product of inputs rounded to TF32 (BF16) moves by up to
	// about 2^-9 (2^-6) at worst; each band must cover that and stay within
	// the 2e-3 (2e-2) band, give or take float32's share.
	for _, c := range []struct {
		p        Precision
		min, max float64
	}{{TF32, 0x1p-9, 2.5e-3}, {BF16, 0x1p-6, 2e-2}} {
		if b := c.p.Bound(1024); b < c.min || b > c.max {
			t.Errorf("%s bound at d=1024 is %g, want in [%g, %g]", c.p, b, c.min, c.max)
		}
	}
	if FP32.Bound(1024) != kernels.RoundingBound(1024) {
		t.Fatal("the FP32 bound is not the CPU join's gamma")
	}
}
