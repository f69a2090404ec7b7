package run

import (
	"fmt"
	"maps"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestPlanReferenceByHand works the reference choice out by hand on
// benchmarks of 3-option items (chance 1/3), each a pattern of four items
// repeated ten times (40 items), unless said:
//
//	long-at-chance: videos 400, 350, 250 and 200 s (mean 300: long); the
//	  32-frame reference answers items 0-2 (item 3 gets no scores) and is
//	  right on item 0 only: s* = 1/3, s* - c = 0 <= 0.05, so the 128-frame
//	  probe runs: right on items 0, 2 and 3 (3 of 4 = 0.75 over 40 items,
//	  0.75 - 1/3 > 0.05): it supplies the reference.
//	long-above: the same durations; right on 3 of 4 (0.75 - 1/3 > 0.05):
//	  the full protocol stays.
//	long-both-near: as long-at-chance, but the probe is right on 1 of 4
//	  (0.25 - 1/3 <= 0.05): s* stays the 32-frame one, near chance (the
//	  authors' levels.py, assign_level).
//	long-few: as long-at-chance, three repeats (12 items): the probe is
//	  right on 3 of 4 but scores 12 < 30 items (levels.py's MIN_N): s*
//	  stays the 32-frame one.
//	short: 60 s videos (one given only by the decoded video) and at chance:
//	  not long, so the full protocol stays, near chance.
func TestPlanReferenceByHand(t *testing.T) {
	t.Parallel()
	secs := func(x float64) *float64 { return &x }
	var items []*harness.Item
	var seconds []float64
	var s32, s128 [][]float64
	pick := func(j int) []float64 {
		if j < 0 {
			return nil
		}
		s := []float64{-3, -3, -3}
		s[j] = -0.5
		return s
	}
	type row struct {
		answer      int
		dur         *float64
		decoded     float64
		at32, at128 int // the picked option, -1: no scores
	}
	add := func(bench string, reps int, rows []row) {
		for r := range reps {
			for k, w := range rows {
				items = append(items, &harness.Item{ID: fmt.Sprintf("%d-%d", r, k), Benchmark: bench, Options: []string{"a", "b", "c"}, Answer: w.answer, Duration: w.dur})
				switch {
				case w.dur != nil:
					seconds = append(seconds, *w.dur)
				case w.decoded > 0:
					seconds = append(seconds, w.decoded)
				default:
					seconds = append(seconds, math.NaN())
				}
				s32, s128 = append(s32, pick(w.at32)), append(s128, pick(w.at128))
			}
		}
	}
	longRows := func(at32, at128 [4]int) []row {
		return []row{{0, secs(400), 0, at32[0], at128[0]}, {1, secs(350), 0, at32[1], at128[1]}, {2, secs(250), 0, at32[2], at128[2]}, {0, nil, 200, at32[3], at128[3]}}
	}
	add("long-at-chance", 10, longRows([4]int{0, 0, 0, -1}, [4]int{0, 2, 2, 0}))
	add("long-above", 10, longRows([4]int{0, 1, 2, 1}, [4]int{0, 0, 0, 0}))
	add("long-both-near", 10, longRows([4]int{0, 0, 0, -1}, [4]int{0, 0, 0, 1}))
	add("long-few", 3, longRows([4]int{0, 0, 0, -1}, [4]int{0, 2, 2, 0}))
	add("short", 10, []row{{0, secs(60), 0, 0, -1}, {1, nil, 60, 0, -1}, {2, secs(60), 0, 0, -1}, {0, nil, 0, 1, -1}})

	ref, src, probe := planReference(items, s32, seconds, "vlm_reader:tiny")
	if want := map[string]bool{"long-at-chance": true, "long-both-near": true, "long-few": true}; !maps.Equal(probe, want) {
		t.Fatalf("probe %v, want %v", probe, want)
	}
	want32 := map[string]struct {
		acc        float64
		n          int
		mean       float64
		long, near bool
	}{
		"long-at-chance": {0.3333, 30, 300, true, true},
		"long-above":     {0.75, 40, 300, true, false},
		"long-both-near": {0.3333, 30, 300, true, true},
		"long-few":       {0.3333, 9, 300, true, true},
		"short":          {0.25, 40, 60, false, true},
	}
	for b, w := range want32 {
		rs := src[b]
		if rs == nil || rs.Accuracy32 == nil || *rs.Accuracy32 != w.acc || rs.N32 != w.n || rs.MeanVideoSeconds == nil || *rs.MeanVideoSeconds != w.mean || rs.LongVideo != w.long || rs.NearChance != w.near || rs.Probe {
			t.Errorf("%s: %+v, want accuracy_32 %v over %d, mean %v s, long %v, near chance %v", b, rs, w.acc, w.n, w.mean, w.long, w.near)
		}
	}
	if len(ref) != 30+40+30+9+40 {
		t.Errorf("%d answers at 32 frames, want 149 (item 3 of the at-chance patterns unanswered)", len(ref))
	}

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
	for b, w := range map[string][2]int{"long-at-chance": {30, 40}, "long-above": {30, 40}, "long-both-near": {10, 30}, "long-few": {3, 9}, "short": {10, 40}} {
		if ok, n := right(b); ok != w[0] || n != w[1] {
			t.Errorf("%s: reference right on %d of %d, want %d of %d", b, ok, n, w[0], w[1])
		}
	}
	for _, tt := range []struct {
		bench  string
		probe  bool
		acc128 float64
		n128   int
	}{
		{"long-at-chance", true, 0.75, 40},
		{"long-both-near", false, 0.25, 40},
		{"long-few", false, 0.75, 12},
		{"long-above", false, -1, 0},
		{"short", false, -1, 0},
	} {
		rs := src[tt.bench]
		frames := ReferenceFrames
		if tt.probe {
			frames = ProbeFrames
		}
		got := -1.0
		if rs.Accuracy128 != nil {
			got = *rs.Accuracy128
		}
		if rs.Probe != tt.probe || rs.Frames != frames || got != tt.acc128 || rs.N128 != tt.n128 || !rs.NearChance && tt.bench != "long-above" {
			t.Errorf("%s: %+v, want probe %v at %d frames, accuracy_128 %v over %d, near chance kept", tt.bench, rs, tt.probe, frames, tt.acc128, tt.n128)
		}
	}
}

// TestProbeCandidates: a shard scores the 128-frame probe of every
// benchmark the merge could probe: long-video ones by their items'
// durations, and any with an item of no duration (its mean needs every
// shard's videos); never a benchmark whose items all say they are short.
func TestProbeCandidates(t *testing.T) {
	t.Parallel()
	secs := func(x float64) *float64 { return &x }
	items := []*harness.Item{
		{ID: "0", Benchmark: "long", Duration: secs(400)}, {ID: "1", Benchmark: "long", Duration: secs(200)},
		{ID: "0", Benchmark: "short", Duration: secs(400)}, {ID: "1", Benchmark: "short", Duration: secs(199)},
		{ID: "0", Benchmark: "unknown", Duration: secs(10)}, {ID: "1", Benchmark: "unknown"},
	}
	if got, want := probeCandidates(items), map[string]bool{"long": true, "unknown": true}; !maps.Equal(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
}
