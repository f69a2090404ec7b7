package release

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// at is a 2-dimensional unit vector at deg degrees: two of them have the
// cosine of their angle.
func at(deg float64) []float32 {
	r := deg * math.Pi / 180
	return []float32{float32(math.Cos(r)), float32(math.Sin(r))}
}

// partition lists the groups of videos that share a scene, each sorted,
// in order of their first video.
func partition(scenes map[string]string) [][]string {
	by := map[string][]string{}
	for _, v := range slices.Sorted(func(yield func(string) bool) {
		for v := range scenes {
			if !yield(v) {
				return
			}
		}
	}) {
		by[scenes[v]] = append(by[scenes[v]], v)
	}
	var out [][]string
	for _, vs := range by {
		out = append(out, vs)
	}
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

// Worked by hand through the authors' scene_clusters. The 0-10s group
// (s0, s10, s60 at 0, 10 and 60 degrees) has pair cosines 0.5, 0.643 and
// 0.985: two of three below T0 = 0.90, so q = 2/3, and its own threshold
// is the 2/3-quantile of those three, 0.643 + (0.985 - 0.643)/3 = 0.757.
// The 3-10m group (l0, l5, l25, l30) has pair cosines 0.866, 0.906,
// 0.906, 0.940, 0.996, 0.996, whose 2/3-quantile is 0.940 + (0.996 -
// 0.940)/3 = 0.959: under it l0 and l5 are one scene and l25 and l30
// another, where the fixed 0.90 would have joined l25 to l0. s0 and l0
// point the same way but lie in two groups: two scenes. z has no frames.
func TestScenesCalibratePerDurationGroup(t *testing.T) {
	t.Parallel()
	videos := []string{"l30", "s0", "l0", "s10", "l5", "s60", "l25", "z"}
	groups := []string{"3-10m", "0-10s", "3-10m", "0-10s", "3-10m", "0-10s", "3-10m", "0-10s"}
	degs := []float64{30, 0, 0, 10, 5, 60, 25, 0}
	x := kernels.NewMatrix(len(videos), 2)
	for i, d := range degs {
		if videos[i] != "z" {
			copy(x.Row(i), at(d))
		}
	}
	got, stats, err := Scenes(context.Background(), videos, groups, x, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"l0", "l5"}, {"l25", "l30"}, {"s0", "s10"}, {"s60"}, {"z"}}
	if p := partition(got); !reflect.DeepEqual(p, want) {
		t.Errorf("scenes %v, want %v", p, want)
	}
	if got["z"] != "scene:z" {
		t.Errorf("z is in %s, want a scene of its own", got["z"])
	}
	cos := func(d float64) float64 { return math.Cos(d * math.Pi / 180) }
	short := cos(50) + (cos(10)-cos(50))/3
	long := cos(20) + (cos(5)-cos(20))/3
	if len(stats) != 2 || stats[0].Group != "0-10s" || stats[1].Group != "3-10m" ||
		math.Abs(stats[0].Threshold-short) > 1e-6 || math.Abs(stats[1].Threshold-long) > 1e-6 ||
		stats[0].Scenes != 2 || stats[1].Scenes != 2 || stats[0].Pairs != 3 || stats[1].Pairs != 6 {
		t.Errorf("groups %+v, want thresholds %.4f and %.4f, 2 scenes each", stats, short, long)
	}

	// The order videos come in does not matter.
	perm := []int{7, 6, 5, 4, 3, 2, 1, 0}
	v2, g2, x2 := make([]string, 8), make([]string, 8), kernels.NewMatrix(8, 2)
	for k, i := range perm {
		v2[k], g2[k] = videos[i], groups[i]
		copy(x2.Row(k), x.Row(i))
	}
	again, _, err := Scenes(context.Background(), v2, g2, x2, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, got) {
		t.Errorf("another input order gave %v, want %v", again, got)
	}
}

// Without two videos under 10 s the shortest group with two calibrates:
// the 3-10m group alone has one pair cosine of six below 0.90 (l0-l30,
// 0.866), q = 1/6, and its threshold is the 1/6-quantile, 0.866 + (5/6)
// (0.906 - 0.866) = 0.900; the authors' q = 1 would give the largest pair
// cosine (0.996) and part l0 from l5.
func TestScenesCalibrateOnTheShortestGroupPresent(t *testing.T) {
	t.Parallel()
	videos := []string{"l0", "l5", "l25", "l30", "s0"}
	groups := []string{"3-10m", "3-10m", "3-10m", "3-10m", "0-10s"}
	x := kernels.NewMatrix(len(videos), 2)
	for i, d := range []float64{0, 5, 25, 30, 90} {
		copy(x.Row(i), at(d))
	}
	_, stats, err := Scenes(context.Background(), videos, groups, x, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cos := func(d float64) float64 { return math.Cos(d * math.Pi / 180) }
	want := cos(30) + 5.0/6*(cos(25)-cos(30))
	if len(stats) != 2 || stats[1].Group != "3-10m" || math.Abs(stats[1].Threshold-want) > 1e-6 || stats[0].Pairs != 0 {
		t.Errorf("groups %+v, want the 3-10m threshold %.4f", stats, want)
	}
}

func TestScenesRefuseAVideoListedTwice(t *testing.T) {
	t.Parallel()
	if _, _, err := Scenes(context.Background(), []string{"a", "a"}, []string{"0-10s", "0-10s"}, kernels.NewMatrix(2, 3), 0.9, kernels.Options{}); err == nil {
		t.Error("a video listed twice was accepted")
	}
	if _, _, err := Scenes(context.Background(), []string{"a"}, nil, kernels.NewMatrix(1, 3), 0.9, kernels.Options{}); err == nil {
		t.Error("a video without a duration group was accepted")
	}
}

// The quantile is numpy's linear one: np.quantile([1, 2, 3, 4], 0.5) is
// 2.5, at 1/3 it is 2.0, at 1 the largest.
func TestQuantileIsNumpys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ q, want float64 }{{0.5, 2.5}, {1.0 / 3, 2}, {1, 4}, {0, 1}, {0.9, 3.7}} {
		if got := quantile([]float64{4, 1, 3, 2}, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile at %v = %v, want %v", c.q, got, c.want)
		}
	}
}

// A group of two videos has one pair, whose cosine is its own quantile:
// the two are one scene whatever q, as in the authors' code. Here the
// 0-10s pair (cosine 0.5) makes q = 1, and the 1-3m pair at 60 degrees
// (cosine 0.5) still joins.
func TestScenesJoinAPairAtItsOwnThreshold(t *testing.T) {
	t.Parallel()
	videos := []string{"a", "b", "c", "d"}
	groups := []string{"0-10s", "0-10s", "1-3m", "1-3m"}
	x := kernels.NewMatrix(4, 2)
	for i, d := range []float64{0, 60, 10, 70} {
		copy(x.Row(i), at(d))
	}
	got, _, err := Scenes(context.Background(), videos, groups, x, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"a", "b"}, {"c", "d"}}; !reflect.DeepEqual(partition(got), want) {
		t.Errorf("scenes %v, want %v", partition(got), want)
	}
}

// The selection gives the sorted array's quantile on data with long runs
// of equal values.
func TestQuantileBySelectionIsTheSortedOnes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 1; n < 300; n += 7 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(rng.IntN(5)) / 4
			if i%3 == 0 {
				xs[i] = rng.Float64()
			}
		}
		sorted := slices.Sorted(slices.Values(xs))
		for _, q := range []float64{0, 0.1, 0.5, 2.0 / 3, 0.99, 1} {
			pos := q * float64(n-1)
			lo := int(math.Floor(pos))
			want := sorted[n-1]
			if lo < n-1 {
				want = sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
			}
			if got := quantile(slices.Clone(xs), q); got != want {
				t.Fatalf("n %d q %v: %v, want %v", n, q, got, want)
			}
		}
	}
}
