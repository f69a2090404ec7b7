package screen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/models/letters"
)

// SensitivityJSONL is the sensitivity review queue a screen writes: one
// JSON object per line for each item the frame-shuffling check flags, with
// what a person needs to decide whether the question still asks for the
// order of events (Video-Oasis 3.1, criteria 3 (iii), and Figure 3(b):
// "cases initially filtered by the frame-shuffling test, but manually
// restored because the questions still require temporal ordering"; the
// authors' ambiguity/sensitivity.py writes the same queue with empty
// manual_decision and manual_note fields). The person sets decision to
// "restore" or "keep" and gives the file back to screen --restore.
const SensitivityJSONL = "sensitivity.jsonl"

// A ReviewItem is one line of SensitivityJSONL.
type ReviewItem struct {
	Benchmark string   `json:"benchmark"`
	ID        string   `json:"id"`
	Video     string   `json:"video"`
	Question  string   `json:"question"`
	Options   []string `json:"options"`
	Answer    int32    `json:"answer"`
	// Letter is the gold option's letter as the readers were shown it.
	Letter string `json:"answer_letter"`
	// Reason says why the item is in the queue: the shuffled-frames
	// attackers that answered it correctly.
	Reason string `json:"reason"`
	// Decision is the person's: DecisionRestore (the question needs the
	// order of events: the frame-shuffling test's success is a false
	// positive, and the test does not make the item a shortcut),
	// DecisionKeep (the shuffled frames do answer it), or "" (not yet
	// reviewed: as keep). A screen that read decisions back writes them.
	Decision string `json:"decision"`
	Note     string `json:"note"`
}

// The decisions of a sensitivity review.
const (
	DecisionRestore = "restore"
	DecisionKeep    = "keep"
)

// reviewQueue returns the sensitivity candidates of s in the run's order.
func (s *Screen) reviewQueue() []ReviewItem {
	restored := map[string]bool{}
	for _, ref := range s.Options.Restored {
		restored[ref.Benchmark+"\x00"+ref.ID] = true
	}
	var out []ReviewItem
	for i := range s.Rows {
		r := &s.Rows[i]
		if !r.Sensitivity {
			continue
		}
		var by []string
		for k := range r.Verdicts {
			v := &r.Verdicts[k]
			if !slices.Contains(s.Options.Shuffled, s.Attackers[k].Name) {
				continue
			}
			if (s.Options.ConsensusRule == RuleSolve && v.Solved) || (s.Options.ConsensusRule != RuleSolve && answered(v, len(r.Options)) && v.Correct) {
				by = append(by, s.Attackers[k].Name)
			}
		}
		it := ReviewItem{Benchmark: r.Benchmark, ID: r.ID, Video: r.Video, Question: r.Question, Options: r.Options, Answer: r.Answer,
			Reason: "answered correctly with the frames shuffled by " + strings.Join(by, ", ")}
		if r.Answer >= 0 {
			it.Letter = letters.LetterName(int(r.Answer))
		}
		if restored[r.Key()] {
			it.Decision = DecisionRestore
		}
		out = append(out, it)
	}
	return out
}

func (s *Screen) writeSensitivity(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range s.reviewQueue() {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("%s: %w", SensitivityJSONL, err)
		}
	}
	return nil
}

// ReadRestore reads a sensitivity review (SensitivityJSONL with the
// decisions filled in) and returns the items restored. Every line must
// name its item (benchmark and id) and carry a known decision; an item
// named twice with different decisions is an error. Blank lines are
// skipped.
func ReadRestore(path string) ([]ItemRef, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []ItemRef
	seen := map[ItemRef]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var it ReviewItem
		dec := json.NewDecoder(bytes.NewReader(text))
		if err := dec.Decode(&it); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		switch {
		case it.Benchmark == "":
			return nil, fmt.Errorf("%s:%d: field benchmark is missing or empty", path, line)
		case it.ID == "":
			return nil, fmt.Errorf("%s:%d: field id is missing or empty", path, line)
		}
		d := strings.ToLower(strings.TrimSpace(it.Decision))
		if d != "" && d != DecisionRestore && d != DecisionKeep {
			return nil, fmt.Errorf("%s:%d: field decision is %q (want %q, %q or empty)", path, line, it.Decision, DecisionRestore, DecisionKeep)
		}
		ref := ItemRef{Benchmark: it.Benchmark, ID: it.ID}
		if prev, ok := seen[ref]; ok {
			if prev != d {
				return nil, fmt.Errorf("%s:%d: item %s/%s decided twice (%q, then %q)", path, line, it.Benchmark, it.ID, prev, d)
			}
			continue
		}
		seen[ref] = d
		if d == DecisionRestore {
			out = append(out, ref)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
