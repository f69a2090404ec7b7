package release

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/kernels"
)

// DefaultSceneThreshold is T0 of Video-Index's pool/scenes.py: the cosine
// of two videos' unit mean frame embeddings at or above which they are one
// visual scene in the shortest duration group. The other groups take the
// threshold that gives the same false-match rate (Scenes).
const DefaultSceneThreshold = 0.90

// scenePairs is how many random pairs of a duration group calibrate its
// threshold (the authors' N_PAIRS); a group with at most this many pairs
// uses every pair once.
const scenePairs = 300000

// sceneSeed seeds the random pairs and the clustering order, fixed as the
// authors' (seed 0): scenes are a property of the pool, not of a release,
// so the pool's snapshot holds them and --seed does not move them.
const sceneSeed = 0

// A SceneGroup says how one duration group's videos were clustered.
type SceneGroup struct {
	Group  string `json:"group"`
	Videos int    `json:"videos"`
	// Threshold is the group's calibrated cosine; Pairs how many random
	// pairs calibrated it.
	Threshold float64 `json:"threshold"`
	Pairs     int     `json:"pairs"`
	Scenes    int     `json:"scenes"`
}

// Scenes clusters videos into visual scenes as Video-Index's
// pool/scenes.py does: frames row i is the mean frame embedding of
// videos[i] (normalised here) and groups[i] its duration group, and videos
// are compared only inside their group, "because the mean vector of a long
// video lies closer to the global centroid than that of a short clip".
//
// The threshold is calibrated per group: q is the share of random pairs of
// the reference group whose cosine is below t0, and every group takes the
// q-quantile of its own random pairs' cosines (numpy's linear quantile),
// which gives every group the same false-match rate. The reference is the
// authors' shortest group, 0-10s; where the pool has fewer than two videos
// there, the shortest group that has two (the authors' rule would take
// q = 1, the most similar random pair, and cluster next to nothing). A
// group of at most 300,000 pairs uses each pair once; a larger one draws
// 300,000 pairs with replacement, as the authors'. Each group is then
// leader clustered (kernels.LeaderClusters: a video joins the most similar
// leader at or above the threshold) in a random order; pairs and orders
// come from one generator seeded with 0, whatever order videos come in
// (they are put in name order first). Each video's scene is named after
// its scene's leader, "scene:<video>"; a video whose row is all zeros (no
// frames) is a scene of its own. It also returns, per group, its
// threshold and scene count.
func Scenes(ctx context.Context, videos, groups []string, frames *kernels.Matrix, t0 float32, opt kernels.Options) (map[string]string, []SceneGroup, error) {
	if frames.Rows != len(videos) || len(groups) != len(videos) {
		return nil, nil, fmt.Errorf("scenes: %d embedding rows and %d duration groups for %d videos", frames.Rows, len(groups), len(videos))
	}
	order := make([]int, len(videos))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(videos[a], videos[b]) })
	for k := 1; k < len(order); k++ {
		if videos[order[k]] == videos[order[k-1]] {
			return nil, nil, fmt.Errorf("scenes: video %q listed twice", videos[order[k]])
		}
	}
	out := make(map[string]string, len(videos))
	members := map[string][]int{}
	var names []string
	for _, i := range order {
		if isZero(frames.Row(i)) {
			out[videos[i]] = "scene:" + videos[i]
			continue
		}
		g := groups[i]
		if _, ok := members[g]; !ok {
			names = append(names, g)
		}
		members[g] = append(members[g], i)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(durationRank(a), durationRank(b)), strings.Compare(a, b))
	})
	unit := func(idx []int) *kernels.Matrix {
		x := kernels.NewMatrix(len(idx), frames.Cols)
		for k, i := range idx {
			copy(x.Row(k), frames.Row(i))
		}
		kernels.NormalizeRows(x)
		return x
	}
	rng := rand.New(rand.NewPCG(sceneSeed, sceneSeed))
	q := 1.0
	for _, g := range names {
		if len(members[g]) >= 2 {
			rc := pairCosines(unit(members[g]), rng)
			below := 0
			for _, c := range rc {
				if c < float64(t0) {
					below++
				}
			}
			q = float64(below) / float64(len(rc))
			break
		}
	}
	var stats []SceneGroup
	for _, g := range names {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		idx := members[g]
		rc := pairCosines(unit(idx), rng)
		tg := float64(t0)
		if len(rc) > 0 {
			tg = quantile(rc, q)
		}
		perm := rng.Perm(len(idx))
		ordered := make([]int, len(idx))
		for k, p := range perm {
			ordered[k] = idx[p]
		}
		leaders, err := kernels.LeaderClusters(ctx, unit(ordered), down32(tg), opt)
		if err != nil {
			return nil, nil, fmt.Errorf("scenes: duration group %s: %w", g, err)
		}
		n := 0
		for k, i := range ordered {
			if int(leaders[k]) == k {
				n++
			}
			out[videos[i]] = "scene:" + videos[ordered[leaders[k]]]
		}
		stats = append(stats, SceneGroup{Group: g, Videos: len(idx), Threshold: tg, Pairs: len(rc), Scenes: n})
	}
	return out, stats, nil
}

// pairCosines is the cosines of random pairs of x's unit rows: every pair
// once when there are at most scenePairs of them, else scenePairs draws of
// two rows with replacement, a draw of one row twice left out (the
// authors' random_pair_cos). Fewer than two rows have none.
func pairCosines(x *kernels.Matrix, rng *rand.Rand) []float64 {
	n := x.Rows
	if n < 2 {
		return nil
	}
	if n*(n-1)/2 <= scenePairs {
		out := make([]float64, 0, n*(n-1)/2)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				out = append(out, kernels.Dot64(x.Row(i), x.Row(j)))
			}
		}
		return out
	}
	out := make([]float64, 0, scenePairs)
	for range scenePairs {
		i, j := rng.IntN(n), rng.IntN(n)
		if i != j {
			out = append(out, kernels.Dot64(x.Row(i), x.Row(j)))
		}
	}
	return out
}

// quantile is numpy's default (linear) q-quantile of xs: the value at
// q (len - 1) between the two order statistics around it. It reorders xs,
// finding the two by selection rather than a sort (a group's 300,000
// cosines are sorted in about the time the rest of its clustering takes).
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	if lo >= len(xs)-1 {
		return slices.Max(xs)
	}
	a := nth(xs, lo)
	b := slices.Min(xs[lo+1:])
	return a + (pos-float64(lo))*(b-a)
}

// nth reorders xs so that xs[k] is its k-th smallest value, none after it
// smaller and none before it larger, and returns it: quickselect with a
// median-of-three pivot and a three-way partition, so runs of equal
// values end it early.
func nth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		a, b, c := xs[lo], xs[lo+(hi-lo)/2], xs[hi]
		p := max(min(a, b), min(max(a, b), c))
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch {
			case xs[i] < p:
				xs[lt], xs[i] = xs[i], xs[lt]
				lt++
				i++
			case xs[i] > p:
				xs[i], xs[gt] = xs[gt], xs[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// down32 is x as a float32 rounded down, so that a pair whose cosine is
// the threshold itself joins, as it does in the authors' float32 compare:
// a group of two videos is one scene whatever q (its only pair cosine is
// its quantile).
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func isZero(row []float32) bool {
	for _, v := range row {
		if v != 0 {
			return false
		}
	}
	return true
}
