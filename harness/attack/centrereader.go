package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
)

// centreReader is the frame-level VLM reader of Video-Index 3.5: vlm_reader
// sees the clip's centre frame, the question and the lettered options, and
// the letter it finds most likely wins.
type centreReader struct{}

func (*centreReader) Name() string         { return "centre-frame-reader" }
func (*centreReader) Level() harness.Level { return harness.LevelFrame }
func (*centreReader) needs() Needs         { return NeedVLMCentre }

func (a *centreReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return vlmAnswer(ctx, a.Name(), VLMCentre, s)
}
