package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
)

// shuffledReader is the order-level VLM reader of Video-Index 3.6: vlm_reader
// sees the clip's uniform frames in a seeded shuffle (one per item), the
// question and the lettered options. An item it answers as well as with
// the frames in order needs no temporal order.
type shuffledReader struct{}

func (*shuffledReader) Name() string         { return "shuffled-frames-reader" }
func (*shuffledReader) Level() harness.Level { return harness.LevelOrder }
func (*shuffledReader) needs() Needs         { return NeedVLMShuffled }

func (a *shuffledReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return vlmAnswer(ctx, a.Name(), VLMShuffled, s)
}
