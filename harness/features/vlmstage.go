package features

import (
	"context"
	"time"
)

// scoreVideos is a worker of the VLM branch. In: decoded videos from vlmQ
// (every frame the decoder took of each). Each video's items are scored
// under every VLM set by vlm_reader (scoreVLM) and the scores stored in the
// cache at once, unless the server failed on some prompt: such a video is
// not stored, its items fail (server) this run and are asked again by the
// next. Out: the scores in the video's planned, and the branch finished. It
// returns when vlmQ is closed and drained, or with the first error of the
// reader or the cache, which stops the run; a cancelled ctx ends the
// reader's calls with ctx's error.
func (x *extraction) scoreVideos(ctx context.Context, vlmQ <-chan *vlmWork) error {
	for w := range vlmQ {
		t0 := time.Now()
		p := x.vids[w.k]
		got, err := scoreVLM(ctx, x.items, p.items, x.opt, w.info, w.row, w.frames)
		if err != nil {
			return err
		}
		if !unanswered(got) {
			if err := storeVLM(x.opt.CacheDir, p.vkey, p.video.Path, got, w.info.Duration); err != nil {
				return err
			}
		}
		x.mu.Lock()
		p.vlm = got
		x.mu.Unlock()
		x.bz.add("vlm", t0)
		x.progress("vlm", len(p.items))
		x.finish(w.k)
	}
	return nil
}
