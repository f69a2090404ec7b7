package metrics

import (
	"slices"
	"testing"
)

// The card's duration breakdown lists Video-MME's categories by length,
// then any other category by name, then items without one.
func TestByDurationCategory(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"long", "medium", "short"}, []string{"short", "medium", "long"}},
		{[]string{"", "long", "short"}, []string{"short", "long", ""}},
		{[]string{"", "brief", "long", "medium", "vast"}, []string{"medium", "long", "brief", "vast", ""}},
	} {
		bs := make([]Breakdown, len(c.in))
		for i, n := range c.in {
			bs[i] = Breakdown{Name: n}
		}
		var got []string
		for _, b := range byDurationCategory(bs) {
			got = append(got, b.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("byDurationCategory(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
