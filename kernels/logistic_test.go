package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// optionData makes n items whose gold slot is signalled by the features:
// feature 0 grows with the gold slot, the rest is noise.
func optionData(seed uint64, n, d, maxC int) (*Matrix, []int32, []int32) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := NewMatrix(n, d)
	y := make([]int32, n)
	nc := make([]int32, n)
	for i := 0; i < n; i++ {
		nc[i] = int32(2 + rng.IntN(maxC-1))
		y[i] = int32(rng.IntN(int(nc[i])))
		r := x.Row(i)
		for j := range r {
			r[j] = float32(rng.NormFloat64())
		}
		for k := 0; k < int(nc[i]) && k+1 < d; k++ {
			if k == int(y[i]) {
				r[k+1] += 3
			}
		}
	}
	return x, y, nc
}

func TestPrequentialLogisticSeesOnlyEarlierRows(t *testing.T) {
	t.Parallel()
	x, y, nc := optionData(1, 300, 12, 5)
	for _, cfg := range []SGDConfig{DefaultSGDConfig(), {Eta: 0.1}, {Average: true, OneHotClasses: true}} {
		base, err := PrequentialLogistic(context.Background(), x, y, nc, 5, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Change the features and labels of rows >= cut: rows < cut must not move.
		cut := 150
		x2 := &Matrix{Rows: x.Rows, Cols: x.Cols, Data: slices.Clone(x.Data)}
		y2 := slices.Clone(y)
		for i := cut; i < x.Rows; i++ {
			for j := range x2.Row(i) {
				x2.Row(i)[j] *= -7
			}
			y2[i] = 0
		}
		moved, err := PrequentialLogistic(context.Background(), x2, y2, nc, 5, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(base.Data[:cut*5], moved.Data[:cut*5]) {
			t.Errorf("%+v: scores of rows < %d depend on later rows", cfg, cut)
		}
		if slices.Equal(base.Data[cut*5:(cut+1)*5], moved.Data[cut*5:(cut+1)*5]) {
			t.Errorf("%+v: row %d ignored its own features", cfg, cut)
		}
		for i := 0; i < x.Rows; i++ {
			row := base.Row(i)
			var p float64
			for k, v := range row {
				if k >= int(nc[i]) {
					if !math.IsInf(float64(v), -1) {
						t.Fatalf("row %d: masked slot %d = %v", i, k, v)
					}
					continue
				}
				p += math.Exp(float64(v))
			}
			if math.Abs(p-1) > 1e-5 {
				t.Fatalf("row %d: probabilities sum to %v", i, p)
			}
		}
		for k := 0; k < int(nc[0]); k++ {
			if want := -math.Log(float64(nc[0])); math.Abs(float64(base.Row(0)[k])-want) > 1e-6 {
				t.Errorf("row 0 slot %d: %v, want the uniform %v", k, base.Row(0)[k], want)
			}
		}
	}
}

func TestPrequentialLogisticFirstStep(t *testing.T) {
	t.Parallel()
	// By hand: after row 0 (two slots, gold 1) with plain SGD, slot k's
	// weights are -eta*(1/2 - [k == 1]) * (x0, 1), so row 1's logits are
	// eta/2 * (-1, +1) . (x0.x1 + 1).
	x := NewMatrix(2, 2)
	copy(x.Data, []float32{1, 2, 0.5, -1})
	cfg := SGDConfig{Alpha: -1, Eta: 0.5}
	got, err := PrequentialLogistic(context.Background(), x, []int32{1, 0}, []int32{2, 2}, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g := 0.5 / 2 * (1*0.5 + 2*-1 + 1) // = -0.125
	l0, l1 := -g, g
	lse := math.Log(math.Exp(l0) + math.Exp(l1))
	if math.Abs(float64(got.Row(1)[0])-(l0-lse)) > 1e-6 || math.Abs(float64(got.Row(1)[1])-(l1-lse)) > 1e-6 {
		t.Errorf("row 1: %v, want [%v %v]", got.Row(1), l0-lse, l1-lse)
	}
}

func TestPrequentialLogisticLearns(t *testing.T) {
	t.Parallel()
	x, y, nc := optionData(2, 2000, 16, 4)
	got, err := PrequentialLogistic(context.Background(), x, y, nc, 4, DefaultSGDConfig())
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i := 1000; i < 2000; i++ {
		row := got.Row(i)[:nc[i]]
		if int32(slices.Index(row, slices.Max(row))) == y[i] {
			right++
		}
	}
	// The signal is 3 standard deviations; chance is about 1/3.
	if right < 900 {
		t.Errorf("accuracy on the second half %d/1000", right)
	}
}

func TestPrequentialLogisticOrders(t *testing.T) {
	t.Parallel()
	x, y, nc := optionData(3, 200, 6, 4)
	rng := rand.New(rand.NewPCG(3, 3))
	orders := make([][]int32, 5)
	for o := range orders {
		orders[o] = make([]int32, x.Rows)
		for i, p := range rng.Perm(x.Rows) {
			orders[o][i] = int32(p)
		}
	}
	cfg := DefaultSGDConfig()
	all, err := PrequentialLogisticOrders(context.Background(), x, y, nc, 4, orders, cfg, Options{Threads: 3})
	if err != nil {
		t.Fatal(err)
	}
	for o, ord := range orders {
		px := NewMatrix(x.Rows, x.Cols)
		py := make([]int32, x.Rows)
		pc := make([]int32, x.Rows)
		for p, i := range ord {
			copy(px.Row(p), x.Row(int(i)))
			py[p], pc[p] = y[i], nc[i]
		}
		want, err := PrequentialLogistic(context.Background(), px, py, pc, 4, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(all[o].Data, want.Data) {
			t.Errorf("order %d differs from a single run on the permuted rows", o)
		}
	}
	bad := [][]int32{append([]int32{0}, orders[0][1:]...)}
	bad[0][1] = 0
	if _, err := PrequentialLogisticOrders(context.Background(), x, y, nc, 4, bad, cfg, Options{}); err == nil {
		t.Error("a non-permutation was accepted")
	}
}

func TestPrequentialLogisticRejectsBadLabels(t *testing.T) {
	t.Parallel()
	x := NewMatrix(2, 3)
	tests := []struct {
		name  string
		y, nc []int32
		maxC  int
	}{
		{"label out of range", []int32{0, 2}, []int32{2, 2}, 2},
		{"too many classes", []int32{0, 0}, []int32{2, 3}, 2},
		{"short labels", []int32{0}, []int32{2, 2}, 2},
	}
	for _, tc := range tests {
		if _, err := PrequentialLogistic(context.Background(), x, tc.y, tc.nc, tc.maxC, SGDConfig{}); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

func TestPrequentialChoiceEqualsMulticlassOnBlockFeatures(t *testing.T) {
	t.Parallel()
	// A multiclass model with per-slot weights is a conditional logit whose
	// candidate k carries the item's features (and a 1) in block k: the SGD
	// steps coincide when nothing is penalised or standardised.
	x, y, nc := optionData(4, 250, 5, 4)
	cfg := SGDConfig{Alpha: -1, Eta: 0.05, Average: true}
	multi, err := PrequentialLogistic(context.Background(), x, y, nc, 4, cfg)
	if err != nil {
		t.Fatal(err)
	}
	block := x.Cols + 1
	var off []int32
	var rows [][]float32
	for i := 0; i < x.Rows; i++ {
		off = append(off, int32(len(rows)))
		for k := 0; k < int(nc[i]); k++ {
			f := make([]float32, 4*block)
			copy(f[k*block:], x.Row(i))
			f[k*block+x.Cols] = 1
			rows = append(rows, f)
		}
	}
	off = append(off, int32(len(rows)))
	feats := NewMatrix(len(rows), 4*block)
	for i, r := range rows {
		copy(feats.Row(i), r)
	}
	choice, err := PrequentialChoice(context.Background(), feats, off, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < x.Rows; i++ {
		for k := 0; k < int(nc[i]); k++ {
			if d := math.Abs(choice[int(off[i])+k] - float64(multi.Row(i)[k])); d > 1e-5 {
				t.Fatalf("row %d slot %d: choice %v, multiclass %v", i, k, choice[int(off[i])+k], multi.Row(i)[k])
			}
		}
	}
	// And the prequential contract with standardisation on.
	std := DefaultSGDConfig()
	std.OneHotClasses = false
	base, err := PrequentialChoice(context.Background(), feats, off, y, std)
	if err != nil {
		t.Fatal(err)
	}
	f2 := &Matrix{Rows: feats.Rows, Cols: feats.Cols, Data: slices.Clone(feats.Data)}
	y2 := slices.Clone(y)
	cut := 100
	for r := int(off[cut]); r < feats.Rows; r++ {
		for j := range f2.Row(r) {
			f2.Row(r)[j] += 5
		}
	}
	for i := cut; i < len(y2); i++ {
		y2[i] = 0
	}
	moved, err := PrequentialChoice(context.Background(), f2, off, y2, std)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(base[:off[cut]], moved[:off[cut]]) {
		t.Error("choice scores depend on later rows")
	}
	if _, err := PrequentialChoice(context.Background(), feats, off, y, DefaultSGDConfig()); err == nil {
		t.Error("OneHotClasses accepted")
	}
}

func TestPrequentialLogisticProgressCountsEveryRowOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 255, 256, 257, 1000} {
		x, y, nc := optionData(4, n, 4, 3)
		calls, rows := 0, 0
		cfg := DefaultSGDConfig()
		cfg.Progress = func(k int) { calls++; rows += k }
		want, err := PrequentialLogistic(context.Background(), x, y, nc, 3, DefaultSGDConfig())
		if err != nil {
			t.Fatal(err)
		}
		got, err := PrequentialLogistic(context.Background(), x, y, nc, 3, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rows != n || calls != (n+255)/256 {
			t.Errorf("%d rows: progress counted %d rows in %d calls, want %d in %d", n, rows, calls, n, (n+255)/256)
		}
		if !slices.Equal(got.Data, want.Data) {
			t.Errorf("%d rows: a progress callback changed the result", n)
		}
	}
}
