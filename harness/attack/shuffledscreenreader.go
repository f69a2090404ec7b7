package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
)

// shuffledScreenReader is the screening funnel's shuffled step on the
// smaller VLM (Video-Index 5.1: "a weaker VLM removes the items it answers
// from 32 frames in order or shuffled"): screen_reader sees the frames and
// the seeded shuffle of shuffled-frames-reader, the question and the
// lettered options. It runs only when the models directory has a
// screen_reader role. It is a screening step only (ScreeningOnly): the
// order level and the retention compare the card's shuffled-frames-reader,
// on vlm_reader, with the same model in order, so this one enters no
// level's eps and no significance family.
type shuffledScreenReader struct{}

func (*shuffledScreenReader) Name() string         { return "shuffled-frames-screen-reader" }
func (*shuffledScreenReader) Level() harness.Level { return harness.LevelOrder }
func (*shuffledScreenReader) needs() Needs         { return NeedVLMShuffled }
func (*shuffledScreenReader) screeningOnly()       {}
func (*shuffledScreenReader) scoresLetters()       {}

func (a *shuffledScreenReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return vlmAnswer(ctx, a.Name(), VLMShuffledScreen, s)
}
