package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
)

// fullVideoReader is a screening step, not a level of the pyramid
// (Video-Index 5.1: "a weaker VLM removes the items it answers from 32
// frames in order"): the VLM sees the clip's uniform frames in time order,
// the question and the lettered options. 32 frames in order is the
// reference protocol itself, so its margin measures how easy an item is,
// not a shortcut: it belongs to no level's exploitability (ScreeningOnly),
// and the cards list it apart.
type fullVideoReader struct{}

func (*fullVideoReader) Name() string         { return "full-video-reader" }
func (*fullVideoReader) Level() harness.Level { return harness.LevelOrder }
func (*fullVideoReader) needs() Needs         { return NeedVLMInOrder }
func (*fullVideoReader) screeningOnly()       {}

func (a *fullVideoReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return vlmAnswer(ctx, a.Name(), VLMInOrder, s)
}

// A screener answers items for screening only.
type screener interface{ screeningOnly() }

// ScreeningOnly reports whether a is a screening step only: the cards
// report it but no level's exploitability counts it.
func ScreeningOnly(a Attacker) bool {
	_, ok := a.(screener)
	return ok
}
