package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
)

// vlmExtra is a VLM reader on a later vlm_reader entry of models.json
// (Config.ExtraVLM): centre-frame-reader#2, shuffled-frames-reader#2, ...,
// a further model of the Video-Oasis centre-frame or frame-shuffling test
// (003, section 3.2: the threshold c counts models within a test), or
// full-video-reader#2, ..., a further full-video model of the consistency
// check (003, section 3.1: the authors compare five). It
// reads the same frames and prompt as its base, scored by that entry
// (Visual.VLM under VLMModelKey), and is diagnostic only: no level's eps,
// no Holm family, and no option-permutation audit, so that the pyramid's
// figures stay the first entry's, comparable with the papers'.
type vlmExtra struct {
	base  Attacker // centreReader, shuffledReader or fullVideoReader
	set   string   // the base's key of Visual.VLM
	need  Needs
	model int // the entry, 1 for the second
}

func (a *vlmExtra) Name() string         { return ModelName(a.base.Name(), a.model) }
func (a *vlmExtra) Level() harness.Level { return a.base.Level() }
func (a *vlmExtra) needs() Needs         { return a.need }
func (a *vlmExtra) diagnosticOnly() bool { return true }
func (*vlmExtra) scoresLetters()         {}

func (a *vlmExtra) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return vlmAnswer(ctx, a.Name(), VLMModelKey(a.set, a.model), s)
}

// VLMModelKey is the key of Visual.VLM under which vlm_reader entry model
// (0 the first) scored frame set set: set itself for the first entry,
// set#<model+1> for a later one.
func VLMModelKey(set string, model int) string { return ModelName(set, model) }
