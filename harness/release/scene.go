package release

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/kernels"
)

// DefaultSceneThreshold is the cosine of two videos' mean frame embeddings
// at or above which they are one visual scene. Video-Index 5.2 caps items
// "per video and visual scene" without giving the rule; this is the
// threshold its near-duplicate analysis uses for questions (0.90, 4.5),
// applied to the unit mean frame embedding v_i of its effective size.
const DefaultSceneThreshold = 0.90

// Scenes clusters videos into visual scenes by leader clustering of their
// mean frame embeddings: frames row i is the embedding of videos[i] (it is
// normalised here). Videos are clustered in name order, so the scenes do not
// depend on the order they are given in; each video's scene is named after
// its scene's leader, "scene:<video>". A video whose row is all zeros (no
// frames) is a scene of its own.
func Scenes(ctx context.Context, videos []string, frames *kernels.Matrix, threshold float32, opt kernels.Options) (map[string]string, error) {
	if frames.Rows != len(videos) {
		return nil, fmt.Errorf("scenes: %d embedding rows for %d videos", frames.Rows, len(videos))
	}
	order := make([]int, len(videos))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(videos[a], videos[b]) })
	for k := 1; k < len(order); k++ {
		if videos[order[k]] == videos[order[k-1]] {
			return nil, fmt.Errorf("scenes: video %q listed twice", videos[order[k]])
		}
	}
	x := kernels.NewMatrix(len(videos), frames.Cols)
	var zero []int
	for k, i := range order {
		copy(x.Row(k), frames.Row(i))
		empty := true
		for _, v := range frames.Row(i) {
			if v != 0 {
				empty = false
				break
			}
		}
		if empty {
			zero = append(zero, k)
		}
	}
	kernels.NormalizeRows(x)
	leaders, err := kernels.LeaderClusters(ctx, x, threshold, opt)
	if err != nil {
		return nil, fmt.Errorf("scenes: %w", err)
	}
	out := make(map[string]string, len(videos))
	for k, i := range order {
		out[videos[i]] = "scene:" + videos[order[leaders[k]]]
	}
	for _, k := range zero {
		out[videos[order[k]]] = "scene:" + videos[order[k]]
	}
	return out, nil
}
