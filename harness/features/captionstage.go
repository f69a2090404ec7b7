package features

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
)

// captionAndStore is the last stage of the features branch, one worker per
// captioner (device d; one worker when there is no captioner). In:
// embedded videos from storeQ. A video whose frame sets ask for captions
// has those frames captioned by device d's captioner, under a lease of its
// budget (Options.Devices); then its entry is written to the cache. Out:
// the video's features in its planned, and the branch finished. A video
// the captioner's server failed on fails its items (server) and is not
// cached, so the next run captions it again. It returns when storeQ is
// closed and drained, or with the first error of the device pool, the
// captioner or the cache, which stops the run (a cancelled ctx ends the
// captioner's call or the lease's wait with ctx's error).
func (x *extraction) captionAndStore(ctx context.Context, d int, storeQ <-chan *work) error {
	for w := range storeQ {
		captioned := true
		if w.plan.captions() {
			var err error
			if captioned, err = x.caption(ctx, d, w); err != nil {
				return err
			}
		}
		w.frames = nil
		if !captioned {
			continue
		}
		t0 := time.Now()
		if err := x.cache.store(w.video, w.plan.String()); err != nil {
			return err
		}
		x.bz.add("store", t0)
		x.mu.Lock()
		x.vids[w.k].video = w.video
		x.mu.Unlock()
		x.finish(w.k)
	}
	return nil
}

// caption sets w.video.Captions from device d's captioner: the captions of
// the frames a set asks them of, "" for the others. It reports false, with
// the video failed, when the captioner's server failed on some frame.
func (x *extraction) caption(ctx context.Context, d int, w *work) (ok bool, err error) {
	opt := x.opt
	if d >= len(opt.Captioner) {
		return false, errors.New("features: a frame set asks for captions and no captioner was given")
	}
	t0 := time.Now()
	want, err := w.plan.captionTimes(w.video.Info, 0)
	if err != nil {
		return false, err
	}
	var idx []int
	var frames []imageprep.Frame
	for r, t := range w.video.Times {
		if want[t] {
			idx = append(idx, r)
			frames = append(frames, w.frames[r])
		}
	}
	var lease *gpu.Lease
	if opt.Devices != nil {
		lease, err = opt.Devices.Acquire(ctx, gpu.Need{Memory: uint64(len(frames)) * opt.frameMemory(x.frameLen), Pinned: true, Slot: d, Work: "captioner", Units: len(frames)})
		if err != nil {
			return false, fmt.Errorf("features: captioner on %s: %d frames: %w", opt.Devices.Devices()[d].ID(), len(frames), err)
		}
	}
	caps, err := opt.Captioner[d].CaptionFrames(ctx, frames)
	if lease != nil {
		lease.Release()
	}
	if err != nil {
		return false, fmt.Errorf("features: captioner (device %d): %w", d, err)
	}
	if n := failedCaptions(caps); n > 0 {
		// A served captioner's server failed on some frames: the video's
		// items fail (server), nothing of it is cached, and the next run
		// captions it again.
		x.fail(w.k, letters.FailureServer, fmt.Errorf("%s: the captioner's server failed on %d of its %d frames after its retries", w.video.Path, n, len(caps)))
		return false, nil
	}
	w.video.Captions = make([]string, len(w.video.Times))
	for j, r := range idx {
		w.video.Captions[r] = caps[j].Text
	}
	x.bz.add("caption", t0)
	x.counts.Lock()
	x.st.Captions += len(idx)
	x.st.CaptionsByDevice[d] += len(idx)
	x.counts.Unlock()
	x.progress("captioned", len(idx))
	return true, nil
}

// failedCaptions counts the captions a served captioner's server failed on.
func failedCaptions(caps []models.Caption) int {
	n := 0
	for _, c := range caps {
		if c.Failed {
			n++
		}
	}
	return n
}
