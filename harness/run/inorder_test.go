package run

import (
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
)

// TestFullVideoReaderReadsTheInOrderSet: the full-video reader's need adds
// the 32 uniform frames in time order to the VLM sets (the temporal
// diagnostics' base, scored once for both), and its scores reach the
// reader under attack.VLMInOrder without changing the feature stage's map.
func TestFullVideoReaderReadsTheInOrderSet(t *testing.T) {
	base, _ := features.DiagnosticSets(32)
	var names []string
	for _, s := range vlmSets(attack.NeedVLMInOrder, 32, 8) {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{base.Name}) {
		t.Errorf("sets %v, want [%s]", names, base.Name)
	}
	vlm := map[string][]float64{base.Name: {-1, -2}, attack.VLMShuffled: {-2, -1}}
	got := inOrderScores(vlm, base.Name)
	if !slices.Equal(got[attack.VLMInOrder], []float64{-1, -2}) || len(vlm) != 2 {
		t.Errorf("scores %v (feature map %v)", got, vlm)
	}
	if none := inOrderScores(map[string][]float64{}, base.Name); len(none) != 0 {
		t.Errorf("without the set: %v", none)
	}
}
