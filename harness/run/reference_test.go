package run

import (
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestPlanReferenceByHand works the reference choice out by hand on three
// benchmarks of four 3-option items (chance 1/3):
//
//	long-at-chance: videos 400, 350, 250 and 200 s (mean 300: long); the
//	  32-frame reference answers items 0-2 (item 3 gets no scores) and is
//	  right on item 0 only: s* = 1/3, s* - c = 0 <= 0.05, so the 128-frame
//	  probe supplies the reference: right on items 0, 2 and 3 (3 of 4).
//	long-above: the same durations; right on 3 of 4 (0.75 - 1/3 > 0.05):
//	  the full protocol stays.
//	short: 60 s videos (one given only by the decoded video) and at chance:
//	  not long, so the full protocol stays.
func TestPlanReferenceByHand(t *testing.T) {
	t.Parallel()
	secs := func(x float64) *float64 { return &x }
	var items []*harness.Item
	var seconds []float64
	add := func(bench, id string, answer int, dur *float64, decoded float64) {
		items = append(items, &harness.Item{ID: id, Benchmark: bench, Options: []string{"a", "b", "c"}, Answer: answer, Duration: dur})
		switch {
		case dur != nil:
			seconds = append(seconds, *dur)
		case decoded > 0:
			seconds = append(seconds, decoded)
		default:
			seconds = append(seconds, math.NaN())
		}
	}
	for _, b := range []string{"long-at-chance", "long-above"} {
		add(b, "0", 0, secs(400), 0)
		add(b, "1", 1, secs(350), 0)
		add(b, "2", 2, secs(250), 0)
		add(b, "3", 0, nil, 200)
	}
	add("short", "0", 0, secs(60), 0)
	add("short", "1", 1, nil, 60)
	add("short", "2", 2, secs(60), 0)
	add("short", "3", 0, nil, 0) // duration unknown: left out of the mean

	pick := func(j int) []float64 { s := []float64{-3, -3, -3}; s[j] = -0.5; return s }
	s32 := [][]float64{
		pick(0), pick(0), pick(0), nil, // long-at-chance: right on 0 only, item 3 unanswered
		pick(0), pick(1), pick(2), pick(1), // long-above: right on 0, 1, 2
		pick(0), pick(0), pick(0), pick(1), // short: right on 0 only
	}
	ref, src, probe := planReference(items, s32, seconds, "vlm_reader:tiny")
	if len(probe) != 1 || !probe["long-at-chance"] {
		t.Fatalf("probe %v, want only long-at-chance", probe)
	}
	want32 := map[string]struct {
		acc   float64
		n     int
		mean  float64
		long  bool
		probe bool
	}{
		"long-at-chance": {0.3333, 3, 300, true, true},
		"long-above":     {0.75, 4, 300, true, false},
		"short":          {0.25, 4, 60, false, false},
	}
	for b, w := range want32 {
		rs := src[b]
		if rs == nil || rs.Accuracy32 == nil || *rs.Accuracy32 != w.acc || rs.N32 != w.n || rs.MeanVideoSeconds == nil || *rs.MeanVideoSeconds != w.mean || rs.LongVideo != w.long || rs.Probe {
			t.Errorf("%s: %+v, want accuracy_32 %v over %d, mean %v s, long %v", b, rs, w.acc, w.n, w.mean, w.long)
		}
	}
	if len(ref) != 11 {
		t.Errorf("%d answers at 32 frames, want 11 (one item unanswered)", len(ref))
	}

	s128 := make([][]float64, len(items))
	s128[0], s128[1], s128[2], s128[3] = pick(0), pick(2), pick(2), pick(0)
	applyProbe(items, s128, probe, ref, src)
	right := func(bench string) (ok, n int) {
		for _, it := range items {
			if it.Benchmark != bench {
				continue
			}
			if p, has := ref[it.Key()]; has {
				n++
				if p == it.Answer {
					ok++
				}
			}
		}
		return ok, n
	}
	for b, w := range map[string][2]int{"long-at-chance": {3, 4}, "long-above": {3, 4}, "short": {1, 4}} {
		if ok, n := right(b); ok != w[0] || n != w[1] {
			t.Errorf("%s: reference right on %d of %d, want %d of %d", b, ok, n, w[0], w[1])
		}
	}
	if rs := src["long-at-chance"]; rs.Frames != ProbeFrames || !rs.Probe {
		t.Errorf("long-at-chance: %+v, want the 128-frame probe", rs)
	}
	if rs := src["long-above"]; rs.Frames != ReferenceFrames || rs.Probe {
		t.Errorf("long-above: %+v, want the 32-frame protocol", rs)
	}
}
