package attack

import "testing"

// The six model readers score letters by log-probability; no learner or
// matcher does (Video-Index 5.1: only the readers are judged by
// confidence).
func TestScoresLetters(t *testing.T) {
	readers := map[string]bool{"options-reader": true, "blind-reader": true, "captions-reader": true,
		"centre-frame-reader": true, "shuffled-frames-reader": true, "contiguous-tenth-reader": true}
	for _, a := range []Attacker{&optionsReader{}, &blindReader{}, &captionsReader{}, &centreReader{}, &shuffledReader{}, &tenthReader{}, &fixedPosition{}, &copyAttacker{}} {
		if got := ScoresLetters(a); got != readers[a.Name()] {
			t.Errorf("ScoresLetters(%s) = %v, want %v", a.Name(), got, readers[a.Name()])
		}
	}
}
