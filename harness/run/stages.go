package run

import (
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// stageRates turns the result's stage times and the feature stage's counts
// into rates.
func stageRates(res *Result) []rundir.StageRate {
	var out []rundir.StageRate
	answered := 0
	for _, at := range res.Attackers {
		answered += at.Items
	}
	for _, s := range res.Stages {
		r := rundir.StageRate{Name: s.Name, Seconds: s.Time.Seconds()}
		switch {
		case s.Name == "attack" || s.Name == "readers":
			r.Unit, r.Units = "answers", answered // one per item, attacker and order: not items
		case s.Name == "features" && res.Features != nil:
			r.Unit, r.Units = "videos", res.Features.Videos
			r.EmptyCaptions = res.Features.EmptyCaptions
		case s.Name == "cards" || s.Name == "duplicates":
			r.Unit, r.Units = "items", res.Items
		}
		out = append(out, r.WithRate())
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
			out = append(out, rundir.StageRate{Name: sub.name, Seconds: t.Seconds(), Unit: sub.unit, Units: sub.n, Busy: true}.WithRate())
		}
	}
	return out
}

// writeStages writes rundir.StagesFile: the stages' rates and what
// Options.StageNotes adds beside them, in one write.
func writeStages(opt *Options, res *Result) error {
	var notes map[string]any
	if opt.StageNotes != nil {
		notes = opt.StageNotes(res)
	}
	return rundir.WriteStages(opt.Out, stageRates(res), notes)
}
