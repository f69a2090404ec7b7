package dups

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
)

// frames builds a FrameMean from unit frame vectors given as rows.
func frames(rows ...[]float32) FrameMean {
	m := kernels.NewMatrix(len(rows), len(rows[0]))
	idx := make([]int, len(rows))
	for k, r := range rows {
		var n float64
		for _, x := range r {
			n += float64(x) * float64(x)
		}
		for j, x := range r {
			m.Row(k)[j] = float32(float64(x) / math.Sqrt(n))
		}
		idx[k] = k
	}
	return MeanFrame(m, idx)
}

func TestPerceptualIdentities(t *testing.T) {
	t.Parallel()
	// A moving video: its frames change over time.
	move := frames([]float32{1, 0, 0, 0}, []float32{0, 1, 0, 0}, []float32{0, 0, 1, 0})
	// Its re-encode: slightly other pixels, the same pictures.
	reenc := frames([]float32{1, 0.05, 0, 0}, []float32{0, 1, 0.05, 0}, []float32{0.05, 0, 1, 0})
	// The same pictures in another order: the same mean, other times.
	shuffled := frames([]float32{0, 0, 1, 0}, []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0})
	// Two stills that embed alike (two blank clips).
	blankA := frames([]float32{0, 0, 0, 1}, []float32{0, 0, 0, 1})
	blankB := frames([]float32{0, 0.01, 0, 1}, []float32{0, 0, 0.01, 1})
	for _, tt := range []struct {
		name   string
		base   []string
		frames []FrameMean
		want   []string
		count  PerceptualCount
	}{
		{"re-encode joins, named by the smallest content", []string{"sha256:b", "sha256:a"}, []FrameMean{move, reenc},
			[]string{"perceptual:sha256:a", "perceptual:sha256:a"}, PerceptualCount{Videos: 2, Joined: 2, Groups: 1}},
		{"same mean at other times stays apart", []string{"sha256:a", "sha256:b"}, []FrameMean{move, shuffled},
			[]string{"sha256:a", "sha256:b"}, PerceptualCount{Videos: 2}},
		{"stills are left to their content", []string{"sha256:a", "sha256:b"}, []FrameMean{blankA, blankB},
			[]string{"sha256:a", "sha256:b"}, PerceptualCount{Still: 2}},
		{"equal content joins its items; no frames keeps the base", []string{"sha256:a", "sha256:a", "id:v", "sha256:c"}, []FrameMean{move, move, {}, reenc},
			[]string{"perceptual:sha256:a", "perceptual:sha256:a", "id:v", "perceptual:sha256:a"}, PerceptualCount{Videos: 2, Joined: 3, Groups: 1}},
		{"no frames at all: content only", []string{"sha256:a", "id:v"}, []FrameMean{{}, {}},
			[]string{"sha256:a", "id:v"}, PerceptualCount{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, threads := range []int{1, 4} {
				got, n, err := PerceptualIdentities(context.Background(), tt.base, tt.frames, PerceptualThreshold, kernels.Options{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("threads %d: item %d is %q, want %q", threads, i, got[i], tt.want[i])
					}
				}
				if n != tt.count {
					t.Errorf("threads %d: count %+v, want %+v", threads, n, tt.count)
				}
			}
		})
	}
	if _, _, err := PerceptualIdentities(context.Background(), []string{"a"}, nil, PerceptualThreshold, kernels.Options{}); err == nil {
		t.Error("a frame list of another length was accepted")
	}
}

// TestPerceptualIdentitiesIgnoreItemOrder: a group is named by its
// content, so reversing the items reverses the identities and nothing else.
func TestPerceptualIdentitiesIgnoreItemOrder(t *testing.T) {
	t.Parallel()
	move := frames([]float32{1, 0, 0}, []float32{0, 1, 0}, []float32{0, 0, 1})
	reenc := frames([]float32{1, 0.02, 0}, []float32{0, 1, 0.02}, []float32{0.02, 0, 1})
	base := []string{"sha256:z", "sha256:y", "id:w"}
	fr := []FrameMean{move, reenc, {}}
	a, _, err := PerceptualIdentities(context.Background(), base, fr, PerceptualThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := PerceptualIdentities(context.Background(), []string{base[2], base[1], base[0]}, []FrameMean{fr[2], fr[1], fr[0]}, PerceptualThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[len(b)-1-i] {
			t.Errorf("item %d: %q forward, %q reversed", i, a[i], b[len(b)-1-i])
		}
	}
}
