package run

import (
	"encoding/json"
	"io"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// StagesFile holds the measured rate of each stage of the last process
// that worked in the run directory. It is the one output besides the log
// that holds timings, so it is not compared between runs: cards.json and the
// other outputs stay pure functions of the inputs.
const StagesFile = "stages.json"

// A StageRate is one stage's time and throughput in this process.
type StageRate struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	// Units and Rate count what the stage did (Units of Unit, Rate per
	// second of Seconds); zero when the stage has no natural unit.
	Unit  string  `json:"unit,omitempty"`
	Units int     `json:"units,omitempty"`
	Rate  float64 `json:"rate,omitempty"`
	// Busy marks a time summed over the stage's goroutines while they
	// worked (the parts of the feature stage run at once), rather than
	// wall time.
	Busy bool `json:"busy,omitempty"`
	// EmptyCaptions, on the features stage, counts the captioned frames
	// whose caption is empty (written now or read from the cache).
	EmptyCaptions int `json:"empty_captions,omitempty"`
}

// stageRates turns the result's stage times and the feature stage's counts
// into rates.
func stageRates(res *Result) []StageRate {
	var out []StageRate
	answered := 0
	for _, at := range res.Attackers {
		answered += at.Items
	}
	for _, s := range res.Stages {
		r := StageRate{Name: s.Name, Seconds: s.Time.Seconds()}
		switch {
		case s.Name == "attack":
			r.Unit, r.Units = "answers", answered // one per item, attacker and order: not items
		case s.Name == "features" && res.Features != nil:
			r.Unit, r.Units = "videos", res.Features.Videos
			r.EmptyCaptions = res.Features.EmptyCaptions
		case s.Name == "cards" || s.Name == "duplicates":
			r.Unit, r.Units = "items", res.Items
		}
		out = append(out, r.withRate())
	}
	if f := res.Features; f != nil {
		for _, sub := range []struct {
			name, busy, unit string
			n                int
		}{
			{"decode (videos)", "decode", "videos", f.Computed + f.Failed},
			{"decode (frames)", "decode", "frames", f.FramesDecoded},
			{"preprocess", "prep", "frames", f.FramesDecoded},
			{"inference", "infer", "frames", f.FramesEmbedded},
			{"caption", "caption", "frames", f.Captions},
			{"hash and cache lookup", "hash", "videos", f.Videos},
		} {
			t, ok := f.Busy[sub.busy]
			if !ok {
				continue
			}
			out = append(out, StageRate{Name: sub.name, Seconds: t.Seconds(), Unit: sub.unit, Units: sub.n, Busy: true}.withRate())
		}
	}
	return out
}

func (r StageRate) withRate() StageRate {
	r.Seconds = float64(time.Duration(r.Seconds*1e9).Round(time.Microsecond)) / 1e9
	if r.Units > 0 && r.Seconds > 0 {
		r.Rate = float64(r.Units) / r.Seconds
	}
	return r
}

// writeStages writes StagesFile.
func writeStages(dir string, res *Result) error {
	return atomicfile.Write(filepath.Join(dir, StagesFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Stages []StageRate `json:"stages"`
		}{stageRates(res)})
	})
}
