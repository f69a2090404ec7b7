package features

import (
	"context"
	"fmt"
	"time"
)

// preprocess is a worker of the preprocessing stage. In: videos from
// prepQ, each with its image tower frames. Out: the same work, with its
// frames turned into the tower's pixel tensors (Options.Prep), on the
// inference queue of device k mod D (inferQs), so the placement depends on
// the plan alone. On the GPU frame path the device preprocesses, and the
// work passes through untouched. It returns when prepQ is closed and
// drained, with the preprocessor's error, which stops the run, or with
// ctx's error when ctx ends while it waits on a queue.
func (x *extraction) preprocess(ctx context.Context, prepQ <-chan *work, inferQs []chan *work) error {
	for w := range prepQ {
		if len(x.opt.DeviceImage) == 0 {
			t0 := time.Now()
			w.pixels = make([]float32, len(w.frames)*x.opt.Prep.FrameLen())
			if err := x.opt.Prep.Batch(ctx, w.frames, w.pixels); err != nil {
				return fmt.Errorf("features: preprocess %s: %w", w.video.Path, err)
			}
			x.bz.add("prep", t0)
		}
		if err := send(ctx, inferQs[w.k%len(inferQs)], w); err != nil {
			return err
		}
	}
	return nil
}
