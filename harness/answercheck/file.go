package answercheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// FileName is the run directory's file of the stage's verdicts, written
// by the audit with --verify-answers and read by screening.
const FileName = "answer_check.json"

// A Record is the stage's outcome for one item.
type Record struct {
	Benchmark string `json:"benchmark"`
	ID        string `json:"id"`
	// Asked is false for an item the verifier is not asked about (Asked).
	Asked bool `json:"asked"`
	// First is the verdict at FirstFrames, Second the one at RecheckFrames
	// where First asked for it; "" where the reader gave none (its prompt
	// fitted no frame, its video failed, its server failed after retries).
	First  string `json:"verdict_32"`
	Second string `json:"verdict_512,omitempty"`
	// Verdict is the final verdict (Second where rechecked, else First)
	// and Frames the budget it was read at (0 with none).
	Verdict string `json:"verdict"`
	Frames  int    `json:"verdict_frames"`
	// Keep and Reason are Keep's.
	Keep   bool   `json:"keep"`
	Reason string `json:"keep_reason"`
}

// Suspect reports whether screening flags the item answer_suspect.
func (r *Record) Suspect() bool { return !r.Keep }

// A File is the stage's outcome for a run: the verifier's name and one
// Record per item, in the run's item order.
type File struct {
	Verifier          string   `json:"verifier"`
	FirstSampler      string   `json:"first_sampler"`
	RecheckSampler    string   `json:"recheck_sampler"`
	ShortVideoSeconds float64  `json:"short_video_seconds"`
	Items             []Record `json:"items"`
}

// Write writes f as indented JSON.
func (f *File) Write(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read reads dir's FileName; it returns nil and no error when the run has
// none (it ran without --verify-answers). A record without a benchmark or
// id, or with a verdict that is none of Verdicts, is an error naming the
// file and the record.
func Read(dir string) (*File, error) {
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for k, r := range f.Items {
		if r.Benchmark == "" || r.ID == "" {
			return nil, fmt.Errorf("%s: items[%d]: benchmark and id are required", path, k)
		}
		for _, v := range []struct{ field, val string }{{"verdict_32", r.First}, {"verdict_512", r.Second}, {"verdict", r.Verdict}} {
			if v.val != "" && !known(v.val) {
				return nil, fmt.Errorf("%s: items[%d] (%s/%s): %s %q is not a verdict (want one of %v)", path, k, r.Benchmark, r.ID, v.field, v.val, Verdicts)
			}
		}
	}
	return &f, nil
}

func known(v string) bool {
	for _, x := range Verdicts {
		if x == v {
			return true
		}
	}
	return false
}
