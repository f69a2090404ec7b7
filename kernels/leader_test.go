package kernels

import (
	"context"
	"slices"
	"testing"
)

func bruteLeaders(x *Matrix, tau float64) []int32 {
	var leaders []int
	out := make([]int32, x.Rows)
	for i := 0; i < x.Rows; i++ {
		best, bs := -1, 0.0
		for _, l := range leaders {
			if s := bruteDot(x.Row(i), x.Row(l)); s >= tau && (best < 0 || s > bs) {
				best, bs = l, s
			}
		}
		if best < 0 {
			best = i
			leaders = append(leaders, i)
		}
		out[i] = int32(best)
	}
	return out
}

func TestLeaderClusters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		n, d  int
		tau   float32
		noise float64
	}{
		{"tight clusters", 900, 16, 0.8, 0.4},
		{"most rows lead (several leader tiles)", 5000, 8, 0.995, 0.5},
		{"one leader", 300, 4, -2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := clustered(11, tc.n, tc.d, 30, tc.noise)
			want := bruteLeaders(x, float64(tc.tau))
			for _, threads := range []int{1, 3} {
				got, err := LeaderClusters(context.Background(), x, tc.tau, Options{Threads: threads})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					diff := 0
					for i := range got {
						if got[i] != want[i] {
							diff++
						}
					}
					t.Errorf("threads %d: %d of %d rows assigned differently", threads, diff, len(got))
				}
			}
		})
	}
}
