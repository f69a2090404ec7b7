package kernels

import (
	"context"
	"math"
	"testing"
)

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

func TestVendiKnownValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	same := NewMatrix(5, 3)
	for i := 0; i < 5; i++ {
		copy(same.Row(i), []float32{0.6, 0, 0.8})
	}
	ortho := NewMatrix(4, 4)
	for i := 0; i < 4; i++ {
		ortho.Row(i)[i] = 1
	}
	for _, q := range []float64{0, 0.5, 1, 2, math.Inf(1)} {
		// Identical items count once; orthogonal ones each count fully.
		for _, tc := range []struct {
			name string
			x    *Matrix
			want float64
		}{{"identical", same, 1}, {"orthogonal", ortho, 4}} {
			got, err := VendiFeatures(ctx, tc.x, q, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.Score, tc.want, 1e-6) { // float32 rows are unit to 1e-7
				t.Errorf("%s q=%v: %v, want %v", tc.name, q, got.Score, tc.want)
			}
		}
	}
	// Two clusters of sizes 3 and 1, orthogonal: eigenvalues 3/4 and 1/4.
	x := NewMatrix(4, 2)
	copy(x.Data, []float32{1, 0, 1, 0, 1, 0, 0, 1})
	got, _ := VendiFeatures(ctx, x, 1, nil, Options{})
	want := math.Exp(-(0.75*math.Log(0.75) + 0.25*math.Log(0.25)))
	if !near(got.Score, want, 1e-12) {
		t.Errorf("two clusters: %v, want %v", got.Score, want)
	}
	// q = 2: 1/sum(l^2); q = inf: 1/max l.
	got2, _ := VendiFeatures(ctx, x, 2, nil, Options{})
	gotInf, _ := VendiFeatures(ctx, x, math.Inf(1), nil, Options{})
	if !near(got2.Score, 1/(0.75*0.75+0.25*0.25), 1e-12) || !near(gotInf.Score, 1/0.75, 1e-12) {
		t.Errorf("q=2: %v, q=inf: %v", got2.Score, gotInf.Score)
	}
}

func TestVendiFormsAgree(t *testing.T) {
	t.Parallel()
	for _, n := range []int{300, 700} { // one tile, then several
		vendiFormsAgree(t, n)
	}
}

func vendiFormsAgree(t *testing.T, n int) {
	ctx := context.Background()
	v := clustered(7, n, 20, 15, 0.8)
	tx := clustered(8, n, 12, 6, 0.9)
	w := make([]float64, v.Rows)
	for i := range w {
		w[i] = float64(1 + i%3)
	}
	for _, q := range []float64{1, 0.5, 2, math.Inf(1)} {
		for _, weights := range [][]float64{nil, w} {
			dual, err := VendiFeatures(ctx, v, q, weights, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			k := make([]float64, v.Rows*v.Rows)
			kj := make([]float64, v.Rows*v.Rows)
			for i := 0; i < v.Rows; i++ {
				for j := 0; j < v.Rows; j++ {
					k[i*v.Rows+j] = bruteDot(v.Row(i), v.Row(j))
					kj[i*v.Rows+j] = k[i*v.Rows+j] * bruteDot(tx.Row(i), tx.Row(j))
				}
			}
			full, err := VendiKernel(ctx, k, v.Rows, q, weights)
			if err != nil {
				t.Fatal(err)
			}
			if dual.Method != "dual" || full.Method != "kernel" || !near(dual.Score, full.Score, 1e-9) {
				t.Errorf("q=%v weighted=%v: dual %+v, kernel %+v", q, weights != nil, dual, full)
			}
			joint, err := VendiJoint(ctx, v, tx, q, weights, Options{Threads: 3})
			if err != nil {
				t.Fatal(err)
			}
			jk, err := VendiKernel(ctx, kj, v.Rows, q, weights)
			if err != nil {
				t.Fatal(err)
			}
			if !near(joint.Score, jk.Score, 1e-9) {
				t.Errorf("q=%v: joint by tiles %v, from the full kernel %v", q, joint.Score, jk.Score)
			}
			if joint.Score < dual.Score-1e-9 {
				t.Errorf("q=%v: joint kernel %v less diverse than its video part %v", q, joint.Score, dual.Score)
			}
		}
	}
}

func TestVendiWeightsCountRepeats(t *testing.T) {
	t.Parallel()
	// An item listed twice weighs the same as one item of weight 2.
	ctx := context.Background()
	x := clustered(9, 6, 5, 3, 0.7)
	rep := NewMatrix(7, 5)
	copy(rep.Data, x.Data)
	copy(rep.Row(6), x.Row(0))
	w := []float64{2, 1, 1, 1, 1, 1}
	for _, q := range []float64{1, 2} {
		a, _ := VendiJoint(ctx, rep, nil, q, nil, Options{}) // 7 rows > 5 dims: dual
		b, _ := VendiJoint(ctx, x, x, q, nil, Options{})     // sanity: joint path runs
		c, err := VendiJoint(ctx, x, nil, q, w, Options{})
		if err != nil || !near(a.Score, c.Score, 1e-9) || b.Score <= 0 {
			t.Errorf("q=%v: repeated %v, weighted %v (err %v)", q, a.Score, c.Score, err)
		}
	}
	for _, bad := range [][]float64{{1, 2}, {1, -1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}} {
		if _, err := VendiFeatures(ctx, x, 1, bad, Options{}); err == nil {
			t.Errorf("weights %v accepted", bad)
		}
	}
	if _, err := VendiFeatures(ctx, x, -1, nil, Options{}); err == nil {
		t.Error("q = -1 accepted")
	}
}
