package world

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// A Small family has fewer items than its planted shortcut needs to be
// testable: even an attacker right on every item would not be significant
// (truth.MinItems), so an audit of the world can only miss it.
type Small struct {
	Family string
	Items  int
	Need   int
}

// TooFew lists w's families with fewer items than truth.MinItems at their
// items' mean chance (1/options), in the truth's family order. Families
// with nothing planted are listed too: "survived" says nothing on so few.
func (w *World) TooFew() []Small {
	chance := map[string]float64{}
	n := map[string]int{}
	fam := map[string]string{}
	for _, it := range w.Truth.Items {
		fam[it.ID] = it.Family
	}
	for _, it := range w.Items {
		f := fam[it.ID]
		if len(it.Options) > 0 {
			chance[f] += 1 / float64(len(it.Options))
		}
		n[f]++
	}
	var out []Small
	for _, f := range w.Truth.Families {
		if n[f.Name] == 0 {
			continue
		}
		need := truth.MinItems(chance[f.Name]/float64(n[f.Name]), truth.HolmAttackers)
		if n[f.Name] < need {
			out = append(out, Small{Family: f.Name, Items: n[f.Name], Need: need})
		}
	}
	return out
}

// maxTestableSearch bounds MinTestableVideos' search.
const maxTestableSearch = 2000

// MinTestableVideos is the fewest videos (opt.Videos or more) whose world,
// with opt's other settings, has no family too small to test (TooFew).
// Families grow with the videos, so it plans worlds of more videos, each
// without rendering, until none is too small.
func MinTestableVideos(opt Options) (int, error) {
	lo := max(opt.Videos, MinVideos())
	for v := lo; v <= maxTestableSearch; v++ {
		o := opt
		o.Videos, o.Progress = v, nil
		w, err := Plan(o)
		if err != nil {
			return 0, err
		}
		if len(w.TooFew()) == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("world: no world of up to %d videos has every family testable", maxTestableSearch)
}
