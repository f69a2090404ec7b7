package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
)

// tenthReader is the order-level VLM reader of Video-Index 3.6 that sees
// only one contiguous tenth of the clip, its start drawn from the item's
// seed: uniform frames inside it, the question and the lettered options,
// to vlm_reader. An item it answers needs no more than a tenth of the
// video.
type tenthReader struct{}

func (*tenthReader) Name() string         { return "contiguous-tenth-reader" }
func (*tenthReader) Level() harness.Level { return harness.LevelOrder }
func (*tenthReader) needs() Needs         { return NeedVLMTenth }

func (a *tenthReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	return vlmAnswer(ctx, a.Name(), VLMTenth, s)
}
