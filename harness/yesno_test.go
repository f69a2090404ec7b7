package harness

import (
	"slices"
	"testing"
)

// TestIsYesNoAuthorsRule ports the Video-Index authors' _yes_no_options
// (audit/chance.py; yes_no_options in pool/schema.py is the same rule),
// each case worked by hand through their steps: cut
// ^\s*[\(\[]?[A-Za-z][\)\]\.:]\s*, strip, lower, rstrip("."), then every
// text in {yes, no, true, false} and at least one option.
func TestIsYesNoAuthorsRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opts []string
		want bool
	}{
		{[]string{"yes", "no"}, true},
		{[]string{"Yes", "No"}, true},
		{[]string{"No", "Yes"}, true},           // order does not matter
		{[]string{"A. Yes", "B. No"}, true},     // their docstring's example
		{[]string{"(A) yes", "(B) no"}, true},   // "(A) " cut
		{[]string{"[a] YES.", "[b] NO."}, true}, // "[a] " cut, "yes." -> "yes"
		{[]string{"a:yes", "b:no"}, true},       // no space after the colon
		{[]string{"Yes...", "No"}, true},        // every trailing full stop cut
		{[]string{"True", "False"}, true},
		{[]string{"true", "no"}, true}, // a subset of the four words
		{[]string{"yes", "yes"}, true}, // {"yes"} is a subset
		{[]string{"  yes  ", "\tno"}, true},
		{[]string{"yes"}, true}, // one option: a non-empty subset still
		{[]string{"Yes!", "No"}, false},
		{[]string{"Yes,", "No"}, false},
		{[]string{"yes .", "no"}, false}, // rstrip(".") leaves "yes "
		{[]string{"yes", "no", "maybe"}, false},
		{[]string{"Yes, it is", "No, it is not"}, false},
		{[]string{"y", "n"}, false},
		{[]string{"A yes", "B no"}, false}, // "A " is no prefix: no closing mark
		{[]string{"1. yes", "2. no"}, false},
		{[]string{"", "no"}, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := IsYesNo(c.opts); got != c.want {
			t.Errorf("IsYesNo(%q) = %v, want %v", c.opts, got, c.want)
		}
	}
}

func TestSetAsideYesNoCountsPerBenchmark(t *testing.T) {
	t.Parallel()
	items := []*Item{
		{ID: "1", Benchmark: "B", Options: []string{"yes", "no"}},
		{ID: "2", Benchmark: "A", Options: []string{"red", "blue"}},
		{ID: "3", Benchmark: "B", Options: []string{"No", "Yes"}},
		{ID: "4", Benchmark: "A", Options: []string{"True", "False"}},
		{ID: "5", Benchmark: "A", Options: []string{"x", "y", "z"}},
		{ID: "6", Benchmark: "C", Options: []string{"x", "y"}},
	}
	kept, aside := SetAsideYesNo(items)
	var ids []string
	for _, it := range kept {
		ids = append(ids, it.ID)
	}
	if !slices.Equal(ids, []string{"2", "5", "6"}) {
		t.Errorf("kept %v, want [2 5 6]", ids)
	}
	want := []SetAside{{Benchmark: "A", Of: 3, YesNo: 1}, {Benchmark: "B", Of: 2, YesNo: 2}}
	if !slices.Equal(aside, want) {
		t.Errorf("aside %+v, want %+v", aside, want)
	}
	if aside[0].Only() || !aside[1].Only() {
		t.Errorf("Only: A %v B %v, want false true", aside[0].Only(), aside[1].Only())
	}
}
