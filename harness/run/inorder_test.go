package run

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/spread"
)

// TestFullVideoReaderReadsTheInOrderSet: the full-video reader's need adds
// the 32 uniform frames in time order to the VLM sets (the temporal
// diagnostics' base, scored once for both), and its scores reach the
// reader under attack.VLMInOrder without changing the feature stage's map.
func TestFullVideoReaderReadsTheInOrderSet(t *testing.T) {
	t.Parallel()
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

// TestScreenShuffledSet: screen_reader's shuffled set is
// shuffled-frames-reader's frames in the same seeded shuffle (the sampler
// and shuffle of features.VLMSets), on the original option order, under
// the key shuffled-frames-screen-reader reads; a run without a
// screen_reader scores no screen set.
func TestScreenShuffledSet(t *testing.T) {
	t.Parallel()
	_, shuffled, _ := features.VLMSets(32)
	o := &Options{Video: &VideoModels{}}
	got := o.screenShuffledSet()
	if got.Name != attack.VLMShuffledScreen || got.Sampler.String() != shuffled.Sampler.String() || !got.Shuffle || got.Permutations != 0 {
		t.Errorf("screen set %v, shuffled-frames-reader's %v", got, shuffled)
	}
	if sets := o.screenSets(attack.NeedVLMShuffled | attack.NeedVLMInOrder); len(sets) != 0 {
		t.Errorf("without a screen_reader: sets %v", sets)
	}
	o.Video.Screen = &spread.VLMScorer{}
	var names []string
	for _, s := range o.screenSets(attack.NeedVLMShuffled | attack.NeedVLMInOrder) {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{o.screenSet().Name, attack.VLMShuffledScreen}) {
		t.Errorf("sets %v", names)
	}
}

// The eight-chunk reader's sets: eight, named as the reader reads them,
// each on the authors' chunk grid with 16 frames, on the original option
// order only.
func TestChunkSets(t *testing.T) {
	t.Parallel()
	sets := vlmSets(attack.NeedVLMChunks, 32, 8)
	if len(sets) != attack.VLMChunks {
		t.Fatalf("%d sets, want %d", len(sets), attack.VLMChunks)
	}
	for k, s := range sets {
		want := fmt.Sprintf("%s=chunk:%d,of:8,n:16", attack.VLMChunk(k+1), k+1)
		if s.String() != want || s.Permutations != 0 {
			t.Errorf("set %d: %s (permutations %d), want %s", k, s, s.Permutations, want)
		}
	}
}
