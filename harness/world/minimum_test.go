package world

import (
	"testing"
)

// TestTooFew: a 12-video world has families of a few items, too few for an
// attacker right on every one to be significant; the minimum world has none.
func TestTooFew(t *testing.T) {
	t.Parallel()
	w, err := Plan(Options{Seed: 1, Videos: 12})
	if err != nil {
		t.Fatal(err)
	}
	small := w.TooFew()
	if len(small) == 0 {
		t.Fatal("a 12-video world has no family too small to test")
	}
	for _, s := range small {
		if s.Items >= s.Need || s.Need < 4 {
			t.Errorf("%+v", s)
		}
	}
	min, err := MinTestableVideos(Options{Seed: 1, Videos: 12})
	if err != nil {
		t.Fatal(err)
	}
	if min <= 12 {
		t.Fatalf("minimum %d videos", min)
	}
	w, err = Plan(Options{Seed: 1, Videos: min})
	if err != nil {
		t.Fatal(err)
	}
	if s := w.TooFew(); len(s) != 0 {
		t.Errorf("the minimum world of %d videos has families too small: %+v", min, s)
	}
	w, err = Plan(Options{Seed: 1, Videos: min - 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.TooFew()) == 0 {
		t.Errorf("%d videos, one less than the minimum, has no family too small", min-1)
	}
	t.Logf("seed 1: %d videos", min)
}
