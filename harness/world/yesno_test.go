package world

import (
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// TestTruthSaysWhichItemsAreYesNo: truth.json marks each bare yes/no item
// (harness.IsYesNo) and counts them per family; the copy and siblings
// families are all yes/no and no other family has any; the audit's
// set-aside (harness.SetAsideYesNo) takes out exactly the marked items.
func TestTruthSaysWhichItemsAreYesNo(t *testing.T) {
	t.Parallel()
	w, err := Plan(Options{Seed: 3, Videos: 120})
	if err != nil {
		t.Fatal(err)
	}
	marked := map[string]bool{}
	for k, it := range w.Items {
		ti := w.Truth.Items[k]
		if ti.ID != it.ID || ti.YesNo != it.YesNo() {
			t.Fatalf("item %s: truth %+v, options %q", it.ID, ti, it.Options)
		}
		if ti.YesNo {
			marked[ti.ID] = true
		}
	}
	for _, f := range w.Truth.Families {
		all := f.Name == "copy" || f.Name == "siblings"
		switch {
		case f.Items == 0:
			continue
		case all && f.YesNoItems != f.Items:
			t.Errorf("family %s: %d of %d items yes/no, want all", f.Name, f.YesNoItems, f.Items)
		case !all && f.YesNoItems != 0:
			t.Errorf("family %s: %d yes/no items, want none", f.Name, f.YesNoItems)
		}
	}
	kept, aside := harness.SetAsideYesNo(w.Items)
	if len(kept)+len(marked) != len(w.Items) {
		t.Errorf("%d kept + %d marked != %d items", len(kept), len(marked), len(w.Items))
	}
	for _, it := range kept {
		if marked[it.ID] {
			t.Errorf("item %s is marked yes/no but was kept", it.ID)
		}
	}
	if len(aside) != 2 || aside[0].Benchmark != "world-copy" || !aside[0].Only() || aside[1].Benchmark != "world-siblings" || !aside[1].Only() {
		t.Errorf("set aside %+v, want world-copy and world-siblings, whole", aside)
	}
}
