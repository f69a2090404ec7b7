package run

import (
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
)

// TestOrderDiagnosticsByHand works the halves and shifted grids out by hand
// on four 2-option items whose answer is option 0 ("r" a right answer, "w"
// a wrong one, "-" no scores):
//
//	item   base  half1  half2  off1  off2
//	0      r     r      -      w     -
//	1      r     w      -      w     -
//	2      w     r      -      -     -
//	3      -     r      -      -     r
//
// base: 2 right of 3. half1: 3 of 4; on items 0-2 (both answered) the base
// is right twice and half1 twice: retention 1. half2: nothing. off1: 0 of
// 2, retention 0/2 = 0. off2: 1 of 1, and no item both answered: no
// retention.
func TestOrderDiagnosticsByHand(t *testing.T) {
	t.Parallel()
	base, conds := features.DiagnosticSets(32)
	var items []*harness.Item
	for _, id := range []string{"0", "1", "2", "3"} {
		items = append(items, &harness.Item{ID: id, Benchmark: "B", Options: []string{"x", "y"}, Answer: 0})
	}
	r, w := []float64{-0.1, -2.4}, []float64{-2.4, -0.1}
	table := map[string][4][]float64{
		base.Name:     {r, r, w, nil},
		conds[0].Name: {r, w, r, r},
		conds[1].Name: {nil, nil, nil, nil},
		conds[2].Name: {w, w, nil, nil},
		conds[3].Name: {nil, nil, nil, r},
	}
	scores := make([]map[string][]float64, 4)
	for i := range scores {
		scores[i] = map[string][]float64{}
		for set, col := range table {
			if col[i] != nil {
				scores[i][set] = col[i]
			}
		}
	}
	d := orderDiagnostics(items, scores, base, conds, "vlm_reader:tiny", 32)["B"]
	if d == nil || d.N != 3 || d.Accuracy == nil || *d.Accuracy != 0.6667 || d.Frames != 32 || len(d.Conditions) != 4 {
		t.Fatalf("diagnostics %+v: want the base at 2 of 3 and four conditions", d)
	}
	f := func(x float64) *float64 { return &x }
	want := []struct {
		name      string
		n         int
		acc, keep *float64
	}{
		{"half1", 4, f(0.75), f(1)},
		{"half2", 0, nil, nil},
		{"off1", 2, f(0), f(0)},
		{"off2", 1, f(1), nil},
	}
	eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for k, w := range want {
		c := d.Conditions[k]
		if c.Name != w.name || c.N != w.n || !eq(c.Accuracy, w.acc) || !eq(c.Retention, w.keep) {
			t.Errorf("condition %d: %s n %d accuracy %v retention %v; want %+v", k, c.Name, c.N, c.Accuracy, c.Retention, w)
		}
	}
}

// TestOrderRetentionOfShuffledAndTenth: with the order level's readers the
// diagnostics gain shuffled and tenth, each with its retention against the
// in-order base on the same items (Video-Index 3.6). Two items, both right
// in order; shuffled right on both (retention 1), tenth right on one (0.5).
func TestOrderRetentionOfShuffledAndTenth(t *testing.T) {
	t.Parallel()
	base, conds := diagnosticSets(attack.NeedVLMShuffled|attack.NeedVLMTenth, 32)
	var names []string
	for _, c := range conds {
		names = append(names, c.Name)
	}
	if want := "[vlm-half1 vlm-half2 vlm-off1 vlm-off2 vlm-shuffled vlm-tenth]"; fmt.Sprint(names) != want {
		t.Fatalf("conditions %v, want %s", names, want)
	}
	if _, only := diagnosticSets(attack.NeedVLMShuffled, 32); len(only) != 5 {
		t.Errorf("shuffled alone: %d conditions, want 5", len(only))
	}
	r, w := []float64{-0.1, -2.4}, []float64{-2.4, -0.1}
	var items []*harness.Item
	scores := make([]map[string][]float64, 2)
	for i := range scores {
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Options: []string{"x", "y"}, Answer: 0})
		scores[i] = map[string][]float64{base.Name: r, "vlm-shuffled": r, "vlm-tenth": r}
	}
	scores[1]["vlm-tenth"] = w
	d := orderDiagnostics(items, scores, base, conds, "vlm_reader:tiny", 32)["B"]
	for name, want := range map[string]float64{"shuffled": 1, "tenth": 0.5} {
		if got, ok := d.Retention(name); !ok || got != want {
			t.Errorf("%s retention %v (%v), want %v", name, got, ok, want)
		}
	}
}

func TestNoVideoRead(t *testing.T) {
	t.Parallel()
	items := []*harness.Item{{ID: "a", Benchmark: "B", Video: "x.mp4"}, {ID: "b", Benchmark: "B", Video: "y.mp4"}}
	missing := features.Item{Failure: "missing", Err: fmt.Errorf("open /r/x.mp4: no such file")}
	tests := []struct {
		name string
		got  []features.Item
		want string
	}{
		{"all failed", []features.Item{missing, missing}, "no video of the 2 items could be read under --videos /r: the first, x.mp4 (item a of B), is missing: open /r/x.mp4: no such file"},
		{"one read", []features.Item{missing, {}}, ""},
		{"no items", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := noVideoRead(items, tt.got, "/r")
			if got := fmt.Sprint(err); (err == nil) != (tt.want == "") || err != nil && got != tt.want {
				t.Errorf("noVideoRead = %v, want %q", err, tt.want)
			}
		})
	}
}
