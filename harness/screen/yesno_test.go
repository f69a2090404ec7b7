package screen

import (
	"slices"
	"testing"
)

// TestFunnelRemovesYesNoUnlessKept: a bare yes/no row that reaches the
// funnel (a run written before the audit set them aside) leaves at
// StepYesNo, after the duplicates and before the option format, whatever
// solves it; a run that kept them (--keep-yesno) keeps the step out.
func TestFunnelRemovesYesNoUnlessKept(t *testing.T) {
	t.Parallel()
	in := fixture()
	in.Rows[0].Options = []string{"Yes", "No"}            // a1, solved by options-reader
	in.Rows[6].Options = []string{"A. true", "B. false."} // a7, kept otherwise
	s, err := Compute(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k := slices.Index(s.Funnel, StepYesNo); k != 1 || s.Funnel[2] != StepOptionFormat {
		t.Fatalf("funnel %v: want %s second, before %s", s.Funnel, StepYesNo, StepOptionFormat)
	}
	for _, k := range []int{0, 6} {
		if r := s.Rows[k]; r.RemovedBy != StepYesNo || r.Kept {
			t.Errorf("row %s: removed by %q, kept %v; want %s", r.ID, r.RemovedBy, r.Kept, StepYesNo)
		}
	}
	in = fixture()
	in.Rows[0].Options = []string{"Yes", "No"}
	in.KeepYesNo = true
	s, err = Compute(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.Funnel, StepYesNo) || s.Rows[0].RemovedBy == StepYesNo || !s.KeepYesNo {
		t.Errorf("kept run: funnel %v, a1 removed by %q", s.Funnel, s.Rows[0].RemovedBy)
	}
	// A run without yes/no rows has no such step.
	s, err = Compute(fixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(s.Funnel, StepYesNo) {
		t.Errorf("funnel %v has %s without a yes/no row", s.Funnel, StepYesNo)
	}
}
