package kernels

import (
	"slices"
	"testing"
)

func TestUnionFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		n      int
		unions [][2]int
		labels []int32
		sizes  []int32
	}{
		{"singletons", 3, nil, []int32{0, 1, 2}, []int32{1, 1, 1}},
		{"chain", 5, [][2]int{{4, 3}, {3, 1}}, []int32{0, 1, 2, 1, 1}, []int32{1, 3, 1, 3, 3}},
		{"two clusters and a repeat", 6, [][2]int{{5, 2}, {0, 4}, {2, 5}, {4, 0}}, []int32{0, 1, 2, 3, 0, 2}, []int32{2, 1, 2, 1, 2, 2}},
		{"everything", 4, [][2]int{{3, 2}, {1, 0}, {2, 1}}, []int32{0, 0, 0, 0}, []int32{4, 4, 4, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Labels must not depend on the order of the unions.
			for _, reverse := range []bool{false, true} {
				u := NewUnionFind(tc.n)
				us := slices.Clone(tc.unions)
				if reverse {
					slices.Reverse(us)
				}
				for _, p := range us {
					u.Union(p[0], p[1])
				}
				if got := u.Labels(); !slices.Equal(got, tc.labels) {
					t.Errorf("labels %v, want %v", got, tc.labels)
				}
				if got := u.Sizes(); !slices.Equal(got, tc.sizes) {
					t.Errorf("sizes %v, want %v", got, tc.sizes)
				}
				for _, p := range us {
					if u.Find(p[0]) != u.Find(p[1]) {
						t.Errorf("%v not joined", p)
					}
				}
			}
		})
	}
}
