package dups

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/kernels"
)

// A re-encoded video (the same clip transcoded, resized or remuxed by
// another benchmark) has other bytes, so the SHA-256 identity misses it.
// Issue 20.9 allows a perceptual match on the mean frame embedding: two
// videos whose image-tower mean embeddings have a cosine of at least
// PerceptualThreshold are one video. Equal content always joins; the
// perceptual match only adds joins on top of it.
const (
	// PerceptualThreshold is the mean-frame cosine at or above which two
	// videos are one. docs/audit.md ("Shared videos") gives the
	// distributions that defend it: re-encodes of one video sit far above
	// it, different videos below.
	PerceptualThreshold = 0.95
	// StillResultant is the frame agreement (FrameMean.Resultant) at or
	// above which a video is left to its content identity: when nearly
	// every sampled frame embeds alike (a still, a title card, a blank or
	// black clip), the mean carries one frame's evidence, and two different
	// stills of one scene, or two blank clips, would join.
	StillResultant = 0.995
	// AlignedThreshold confirms a match frame by frame (Aligned): the
	// colour-and-shape tower gives two different world videos of the same
	// colours and shapes a mean cosine of 0.976, but their frames at the
	// same times agree at 0.85 at most, while every re-encode's agree at
	// 0.94 or more (TestPerceptualIdentityJoinsReencodesOfTheWorld).
	AlignedThreshold = 0.90
	// PerceptualPrefix marks an identity that a perceptual match made: the
	// smallest content identity of the group follows it.
	PerceptualPrefix = "perceptual:"
	// VideosByPerceptual is Result.VideosBy when the perceptual match ran.
	VideosByPerceptual = "content+perceptual (SHA-256 of the video file, or mean frame embedding cosine >= 0.95)"
)

// A FrameMean is what the perceptual match reads of one item's video: the
// unit mean of its sampled frames' unit embeddings, and how alike those
// frames are.
type FrameMean struct {
	// Mean is the L2-normalised mean embedding (nil when the item has no
	// frames, or they cancel out).
	Mean []float32
	// Resultant is the length of the plain mean of the frames' unit
	// embeddings, in [0, 1]: 1 when every frame embeds alike, lower the
	// more the video changes.
	Resultant float64
	// Frames are the frames' unit embeddings in time order (views of the
	// caller's rows), which confirm a match frame by frame.
	Frames [][]float32
}

// MeanFrame is the FrameMean of rows of m (unit embeddings, one a frame),
// summed in float64 in row order so that it depends on nothing else.
func MeanFrame(m *kernels.Matrix, rows []int) FrameMean {
	if len(rows) == 0 {
		return FrameMean{}
	}
	acc := make([]float64, m.Cols)
	frames := make([][]float32, len(rows))
	for k, r := range rows {
		frames[k] = m.Row(r)
		for j, x := range m.Row(r) {
			acc[j] += float64(x)
		}
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return FrameMean{}
	}
	norm = math.Sqrt(norm)
	out := make([]float32, m.Cols)
	for j, x := range acc {
		out[j] = float32(x / norm)
	}
	return FrameMean{Mean: out, Resultant: norm / float64(len(rows)), Frames: frames}
}

// PerceptualCount says what the perceptual match did.
type PerceptualCount struct {
	// Videos counts the distinct (identity, frames) the match compared;
	// Still those left to their content identity (StillResultant).
	Videos, Still int
	// Joined counts the items whose identity the match changed, Groups the
	// identities that now cover more than one content identity.
	Joined, Groups int
}

// PerceptualIdentities joins the items' video identities (base, as
// VideoIdentity gives them) by their mean frame embeddings: items whose
// FrameMeans have a cosine >= tau, confirmed by their frames at the same
// times (Aligned >= AlignedThreshold), are one video, as are items of one base
// identity, transitively (union-find, as near-duplicate clusters are). An
// item of a group that covers more than one base identity gets
// PerceptualPrefix and the group's smallest base identity; every other
// item keeps its base. An item without a mean, or whose frames agree at
// StillResultant or above, joins by its base only. The join is exact
// (kernels.ThresholdJoin) and each group is named by its content, so the
// identities depend on neither the thread count nor the item order.
func PerceptualIdentities(ctx context.Context, base []string, frames []FrameMean, tau float32, opt kernels.Options) ([]string, PerceptualCount, error) {
	if len(frames) != len(base) {
		return nil, PerceptualCount{}, fmt.Errorf("perceptual video identity: %d frame means for %d items", len(frames), len(base))
	}
	// One node per distinct base identity and per distinct mean: the items
	// of one clip of one video are one node, so the join sees each once.
	node := make([]int, len(base))
	key := map[string]int{}
	var nodeBase []string
	var nodeItem []int // the first item of each node
	var rows [][]float32
	var count PerceptualCount
	for i, b := range base {
		m := frames[i].Mean
		still := m != nil && frames[i].Resultant >= StillResultant
		k := b
		if m != nil && !still {
			k = b + "\x00" + meanKey(m)
		}
		n, ok := key[k]
		if !ok {
			n = len(nodeBase)
			key[k] = n
			nodeBase = append(nodeBase, b)
			nodeItem = append(nodeItem, i)
			if m != nil && !still {
				rows = append(rows, m)
			} else {
				rows = append(rows, nil)
			}
			switch {
			case still:
				count.Still++
			case m != nil:
				count.Videos++
			}
		}
		node[i] = n
	}
	uf := kernels.NewUnionFind(len(nodeBase))
	first := map[string]int{}
	for n, b := range nodeBase {
		if f, ok := first[b]; ok {
			uf.Union(f, n)
		} else {
			first[b] = n
		}
	}
	var with []int // nodes with a mean, in node order
	dim := 0
	for n, r := range rows {
		if r != nil {
			with = append(with, n)
			dim = len(r)
		}
	}
	if len(with) > 1 {
		x := kernels.NewMatrix(len(with), dim)
		for k, n := range with {
			if len(rows[n]) != dim {
				return nil, PerceptualCount{}, fmt.Errorf("perceptual video identity: mean embeddings of %d and %d dimensions", dim, len(rows[n]))
			}
			copy(x.Row(k), rows[n])
		}
		err := kernels.ThresholdJoin(ctx, x, nil, tau, opt, func(ps []kernels.Pair) error {
			for _, p := range ps {
				a, b := with[p.I], with[p.J]
				if Aligned(frames[nodeItem[a]].Frames, frames[nodeItem[b]].Frames) >= AlignedThreshold {
					uf.Union(a, b)
				}
			}
			return nil
		})
		if err != nil {
			return nil, PerceptualCount{}, fmt.Errorf("perceptual video identity: %w", err)
		}
	}
	// Each group's base identities, to name it by its smallest.
	bases := map[int][]string{}
	for n, b := range nodeBase {
		r := uf.Find(n)
		if !slices.Contains(bases[r], b) {
			bases[r] = append(bases[r], b)
		}
	}
	out := make([]string, len(base))
	for i, b := range base {
		bs := bases[uf.Find(node[i])]
		if len(bs) < 2 {
			out[i] = b
			continue
		}
		out[i] = PerceptualPrefix + slices.Min(bs)
		count.Joined++
	}
	for _, bs := range bases {
		if len(bs) > 1 {
			count.Groups++
		}
	}
	return out, count, nil
}

// meanKey is the exact bits of a mean embedding, so that only identical
// means (the same frames of the same file) share a node.
func meanKey(m []float32) string {
	var b strings.Builder
	b.Grow(4 * len(m))
	for _, x := range m {
		u := math.Float32bits(x)
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
		b.WriteByte(byte(u >> 16))
		b.WriteByte(byte(u >> 24))
	}
	return b.String()
}

// Aligned is the mean cosine of two videos' frames taken at the same
// relative times (the k-th of the shorter list against the frame of the
// longer at the same share of its length): a re-encode shows the same
// picture at each time, while two different videos of the same colours
// and objects, whose means agree, show them at other times. 0 when either
// has no frames.
func Aligned(a, b [][]float32) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(b) < len(a) {
		a, b = b, a
	}
	var s float64
	for k, x := range a {
		y := b[k*len(b)/len(a)]
		var d float64
		for j := range x {
			d += float64(x[j]) * float64(y[j])
		}
		s += d
	}
	return s / float64(len(a))
}
