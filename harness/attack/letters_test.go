package attack

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// The six model readers score letters by log-probability; no learner or
// matcher does (Video-Index 5.1: only the readers are judged by
// confidence).
func TestScoresLetters(t *testing.T) {
	t.Parallel()
	readers := map[string]bool{"options-reader": true, "blind-reader": true, "captions-reader": true,
		"centre-frame-reader": true, "shuffled-frames-reader": true, "contiguous-tenth-reader": true}
	for _, a := range []Attacker{&optionsReader{}, &blindReader{}, &captionsReader{}, &centreReader{}, &shuffledReader{}, &tenthReader{}, &fixedPosition{}, &copyAttacker{}} {
		if got := ScoresLetters(a); got != readers[a.Name()] {
			t.Errorf("ScoresLetters(%s) = %v, want %v", a.Name(), got, readers[a.Name()])
		}
	}
}

// TestModelNames: the blind reader on a later lm_reader entry is
// blind-reader#<entry>, diagnostic only; the first keeps its name.
func TestModelNames(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Levels = []harness.Level{harness.LevelText}
	cfg.Roles = []string{RoleLMReader}
	cfg.Extra = []LetterReader{nil, nil}
	var names []string
	for _, a := range Attackers(cfg) {
		if b, _ := SplitModel(a.Name()); b == "blind-reader" {
			names = append(names, fmt.Sprintf("%s:%v", a.Name(), DiagnosticOnly(a)))
		}
	}
	if got := strings.Join(names, ","); got != "blind-reader:false,blind-reader#2:true,blind-reader#3:true" {
		t.Errorf("blind readers %s", got)
	}
	for name, want := range map[string]string{"blind-reader": "blind-reader/0", "blind-reader#2": "blind-reader/1", "x#1": "x#1/0", "x#02": "x#02/0", "x#": "x#/0", "a#b#3": "a#b/2"} {
		if b, k := SplitModel(name); fmt.Sprintf("%s/%d", b, k) != want {
			t.Errorf("SplitModel(%q) = %s, %d; want %s", name, b, k, want)
		}
	}
}
