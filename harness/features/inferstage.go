package features

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
)

// embedFrames is device d's inference stage on the host path, one
// goroutine per device. In: preprocessed videos from in (device d's
// queue). It gathers the frames of as many waiting videos as fit in
// maxBatch (at least one whole video), runs them through the image tower
// in runs of at most runFrames (what the smallest device budget holds),
// holding device d's budget for the largest run meanwhile
// (Options.Devices). Out: each video with its Embeddings, on storeQ. A
// video with a non-finite embedding fails its own items and is not sent
// on (so not cached). It returns when in is closed and drained, with the
// first error of the device pool or the tower, which stops the run, or
// with ctx's error when ctx ends while it waits.
func (x *extraction) embedFrames(ctx context.Context, d int, in <-chan *work, storeQ chan<- *work) error {
	for w := range in {
		batch, n := gather(w, in, x.maxBatch)
		embs, err := x.embedBatch(ctx, d, batch, n)
		if err != nil {
			return err
		}
		x.counts.Lock()
		x.st.FramesByDevice[d] += n
		x.counts.Unlock()
		off := 0
		for _, b := range batch {
			// b is the next stage's once sent: its frames are read first.
			m := len(b.frames)
			if err := x.embedded(ctx, d, b, embs[off:off+m], storeQ); err != nil {
				return err
			}
			off += m
		}
	}
	return nil
}

// gather is first and whatever more videos are waiting on in, without
// blocking, until they hold maxBatch frames or more; n counts their frames.
func gather(first *work, in <-chan *work, maxBatch int) (batch []*work, n int) {
	batch, n = []*work{first}, len(first.frames)
	for n < maxBatch {
		select {
		case more, ok := <-in:
			if !ok {
				return batch, n
			}
			batch = append(batch, more)
			n += len(more.frames)
		default:
			return batch, n
		}
	}
	return batch, n
}

// embedBatch runs the n frames of batch through device d's image tower in
// runs of runSizes, under one lease of device d for the largest run, and
// returns one embedding per frame, in batch order.
func (x *extraction) embedBatch(ctx context.Context, d int, batch []*work, n int) ([][]float32, error) {
	opt := x.opt
	runs := runSizes(n, x.runFrames)
	var lease *gpu.Lease
	if opt.Devices != nil {
		var err error
		lease, err = opt.Devices.Acquire(ctx, gpu.Need{Memory: uint64(slices.Max(runs)) * opt.frameMemory(x.frameLen), Pinned: true, Slot: d, Work: "image_text", Units: n})
		if err != nil {
			return nil, fmt.Errorf("features: image tower on %s: a run of %d frames: %w", opt.Devices.Devices()[d].ID(), n, err)
		}
		if lease.Slot() != d {
			lease.Release()
			return nil, fmt.Errorf("features: image tower on %s: a run of %d frames does not fit its memory budget", opt.Devices.Devices()[d].ID(), n)
		}
	}
	t0 := time.Now()
	pix := make([]float32, 0, n*x.frameLen)
	for _, b := range batch {
		pix = append(pix, b.pixels...)
	}
	var embs [][]float32
	lo := 0
	for _, size := range runs {
		e, err := opt.Image[d].EmbedImages(ctx, padSingle(models.ImageBatch{N: size, C: 3, H: x.h, W: x.wd, Data: pix[lo*x.frameLen : (lo+size)*x.frameLen]}))
		if err != nil {
			if lease != nil {
				lease.Release()
			}
			return nil, fmt.Errorf("features: image tower (device %d): %w", d, err)
		}
		if len(e) < size {
			return nil, fmt.Errorf("features: image tower returned %d embeddings for %d frames", len(e), size)
		}
		embs = append(embs, e[:size]...)
		lo += size
	}
	if lease != nil {
		lease.Release()
	}
	x.bz.add("infer", t0)
	return embs, nil
}

// embedded takes one video of a batch with device d's embeddings of it
// (one per frame):
// it counts them, and sends the video on to storeQ with its Embeddings
// unless a row is not finite, which fails the video.
func (x *extraction) embedded(ctx context.Context, d int, w *work, embs [][]float32, storeQ chan<- *work) error {
	m := kernels.NewMatrix(len(w.frames), x.opt.Image[d].Dim())
	for r := range w.frames {
		copy(m.Row(r), embs[r])
	}
	w.pixels = nil
	x.counts.Lock()
	x.st.FramesEmbedded += len(w.frames)
	x.counts.Unlock()
	x.progress("embedded", len(w.frames))
	// A model that emits NaN or Inf for a frame would make every
	// similarity of the video NaN and its items' answers silently wrong:
	// the video fails its own items instead, and is not cached.
	var nf *kernels.NonFiniteError
	if err := kernels.CheckFinite(m); errors.As(err, &nf) {
		x.fail(w.k, FailureNonFinite, fmt.Errorf("image tower gave a non-finite embedding for %s at %v: %w", w.video.Path, w.video.Times[nf.Row], err))
		return nil
	} else if err != nil {
		return err
	}
	w.video.Embeddings = m
	return send(ctx, storeQ, w)
}

// padSingle turns a batch of one image into two copies of it. ONNX Runtime
// computes a run of one image through its matrix-vector kernels, whose sums
// round differently from the matrix-matrix ones every larger run uses (the
// last bit of some values; TestImageTowerRowsDoNotDependOnTheirBatch), so
// without this a frame's embedding would depend on whether another video's
// frames happened to share its run. The extra row is dropped by the caller.
func padSingle(b models.ImageBatch) models.ImageBatch {
	if b.N != 1 {
		return b
	}
	b.Data = append(b.Data[:len(b.Data):len(b.Data)], b.Data...)
	b.N = 2
	return b
}

// runSizes splits n frames into runs of at most maxBatch, none of one frame
// unless n is 1 (see padSingle): 33 frames at 32 are runs of 31 and 2.
func runSizes(n, maxBatch int) []int {
	maxBatch = max(maxBatch, 3) // with 2, three frames would leave one
	var out []int
	for n > 0 {
		k := min(n, maxBatch)
		if n-k == 1 {
			k--
		}
		out = append(out, k)
		n -= k
	}
	return out
}
