package rundir

import (
	"encoding/json"
	"io"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// A StageRate is one stage's time and throughput in the process that last
// worked in the run directory, an entry of StagesFile's "stages".
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

// WithRate returns r with Seconds rounded to the microsecond and Rate set
// from Units (zero without units or time).
func (r StageRate) WithRate() StageRate {
	r.Seconds = float64(time.Duration(r.Seconds*1e9).Round(time.Microsecond)) / 1e9
	if r.Units > 0 && r.Seconds > 0 {
		r.Rate = float64(r.Units) / r.Seconds
	}
	return r
}

// WriteStages writes dir's StagesFile, indented: {"stages": rates}, and
// beside it each key of notes (what the process that ran the audit knows of
// it: a served role's counts, the frame path taken), in key order.
func WriteStages(dir string, rates []StageRate, notes map[string]any) error {
	doc := map[string]any{"stages": rates}
	for k, v := range notes {
		if k != "stages" {
			doc[k] = v
		}
	}
	return atomicfile.Write(filepath.Join(dir, StagesFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	})
}
