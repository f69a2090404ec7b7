package features

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// pipeline decodes each video of vids once, at the union of the frame times
// of what the caches lacked, then preprocesses, embeds, captions and stores
// its frame sets' frames and, on a branch of its own, scores its items'
// VLM sets with vlm_reader, filling each video's fields (its features, its
// scores, or its failure). Each stage hands the next a bounded queue, so a
// slow stage holds back the ones before it instead of letting work pile up:
//
//	decodeVideos -> prepQ -> preprocess -> inferQs[d] -> embedFrames (inferOnDevice) -> storeQ -> captionAndStore
//	             -> vlmQ  -> scoreVideos
//
// The first error of any stage cancels the others and is returned; a bad
// video only fails its own items.
func pipeline(ctx context.Context, vids []*planned, items []*harness.Item, opt *Options, c cache, st *Stats, progress func(string, int)) error {
	x := newExtraction(vids, items, opt, c, st, progress)
	g, ctx := errgroup.WithContext(ctx)
	prepQ := make(chan *work, x.prepWorkers)
	vlmQ := make(chan *vlmWork, max(2, x.vlmWorkers))
	// One inference queue per device: video k goes to device k mod D, so
	// the placement, and the frames each device embeds, depend on the plan
	// alone, and with videos of like length every device stays busy.
	inferQs := make([]chan *work, max(1, len(opt.Image)))
	for d := range inferQs {
		inferQs[d] = make(chan *work, 2)
	}
	storeQ := make(chan *work, 2)

	startWorkers(g, 1, func(int) error { return x.decodeVideos(ctx, prepQ, vlmQ) }, func() { close(prepQ); close(vlmQ) })
	if len(opt.VLMSets) > 0 {
		startWorkers(g, x.vlmWorkers, func(int) error { return x.scoreVideos(ctx, vlmQ) }, nil)
	}
	startWorkers(g, x.prepWorkers, func(int) error { return x.preprocess(ctx, prepQ, inferQs) }, func() {
		for _, q := range inferQs {
			close(q)
		}
	})
	startWorkers(g, len(opt.Image), func(d int) error {
		if len(opt.DeviceImage) > 0 {
			return x.inferOnDevice(ctx, d, inferQs[d], storeQ)
		}
		return x.embedFrames(ctx, d, inferQs[d], storeQ)
	}, func() { close(storeQ) })
	startWorkers(g, max(1, len(opt.Captioner)), func(d int) error { return x.captionAndStore(ctx, d, storeQ) }, nil)
	return g.Wait()
}

// startWorkers runs stage(0) to stage(n-1) in g, each on its own goroutine,
// and then, once all of them have returned (whether or not with an error),
// calls done when it is not nil: a stage's workers share its input queue,
// and done closes its output queue, which ends the next stage's workers'
// loops. With n 0, done is called at once.
func startWorkers(g *errgroup.Group, n int, stage func(i int) error, done func()) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			return stage(i)
		})
	}
	if done != nil {
		g.Go(func() error {
			wg.Wait()
			done()
			return nil
		})
	}
}

// An extraction is one pipeline call: the videos, the options and the
// sizes its stages read, and the tallies and video fields they write.
// Every stage worker is a method; none keeps state of its own beyond one
// video or one batch.
type extraction struct {
	vids     []*planned
	items    []*harness.Item
	opt      *Options
	cache    cache
	st       *Stats
	progress func(string, int)
	bz       *busy

	// prepWorkers, vlmWorkers: goroutines of those stages. maxBatch is the
	// most frames one gathering of the image tower takes, runFrames the most
	// frames of one of its runs; h, wd and frameLen are the shape of one
	// preprocessed frame (0 without Prep).
	prepWorkers, vlmWorkers int
	maxBatch, runFrames     int
	h, wd, frameLen         int

	// mem holds Options.FrameBytes, taken by each video's frame copies
	// (held[k] bytes) until its last branch is done; nil without a bound.
	mem  *semaphore.Weighted
	held []int64

	// counts guards the frame and caption tallies of st.
	counts sync.Mutex
	// mu guards pending and the fields of vids the stages fill (fail, err,
	// duration, vlm, video); pending counts each video's branches left
	// (its features, its VLM scores).
	mu      sync.Mutex
	pending []int
}

func newExtraction(vids []*planned, items []*harness.Item, opt *Options, c cache, st *Stats, progress func(string, int)) *extraction {
	x := &extraction{vids: vids, items: items, opt: opt, cache: c, st: st, progress: progress, bz: &busy{m: st.Busy}}
	x.prepWorkers = opt.PrepWorkers
	if x.prepWorkers <= 0 {
		x.prepWorkers = 2
	}
	x.maxBatch = opt.MaxBatch
	if x.maxBatch <= 0 {
		x.maxBatch = 32
	}
	// A served vlm_reader scores several videos at once (VLMGroups); an
	// ONNX one, one.
	x.vlmWorkers = 1
	if g, ok := opt.VLM.(VLMGroups); ok {
		x.vlmWorkers = max(1, g.VideosInFlight())
	}
	if opt.Prep != nil {
		x.h, x.wd = opt.Prep.OutputSize()
		x.frameLen = opt.Prep.FrameLen()
	}
	// A run takes at most as many frames as the smallest device budget
	// holds; the frames of one gathering go through in runs of that size,
	// one after the other, so the lease holds the budget of the largest.
	x.runFrames = x.maxBatch
	if opt.Devices != nil && x.frameLen > 0 {
		if b := opt.Devices.SmallestBudget(); b > 0 {
			x.runFrames = max(1, min(x.maxBatch, int(b/opt.frameMemory(x.frameLen))))
		}
	}
	st.FramesByDevice = make([]int, len(opt.Image))
	st.DecodedByDevice = make([]int, max(1, opt.Decode.Sets))
	st.CaptionsByDevice = make([]int, len(opt.Captioner))
	x.pending = make([]int, len(vids))
	x.held = make([]int64, len(vids))
	switch {
	case opt.FrameBytes == 0:
		x.mem = semaphore.NewWeighted(DefaultFrameBytes)
	case opt.FrameBytes > 0:
		x.mem = semaphore.NewWeighted(opt.FrameBytes)
	}
	for k, p := range vids {
		x.pending[k] = b2i(p.needFeat) + b2i(p.needVLM)
	}
	return x
}

// finish ends one branch of video k; when it was the last, the video is
// finished, the bytes its frames held are given back and progress hears
// of it.
func (x *extraction) finish(k int) {
	x.mu.Lock()
	x.pending[k]--
	last := x.pending[k] == 0
	held := int64(0)
	if last {
		held, x.held[k] = x.held[k], 0
	}
	x.mu.Unlock()
	if held > 0 {
		x.mem.Release(held)
	}
	if last {
		x.progress("videos", 1)
	}
}

// hold takes the bytes of video k's frame copies from the bound (at most
// all of it, so that a larger video goes through alone), waiting while
// other videos hold them; ctx's error if ctx ends first.
func (x *extraction) hold(ctx context.Context, k int, frames []decode.Frame) error {
	if x.mem == nil {
		return nil
	}
	var n int64
	for _, f := range frames {
		n += int64(len(f.RGB))
	}
	n = min(n, x.bound())
	if n == 0 {
		return nil
	}
	if err := x.mem.Acquire(ctx, n); err != nil {
		return err
	}
	x.mu.Lock()
	x.held[k] = n
	x.mu.Unlock()
	return nil
}

// bound is the frame bytes the stages may hold at once.
func (x *extraction) bound() int64 {
	if x.opt.FrameBytes > 0 {
		return x.opt.FrameBytes
	}
	return DefaultFrameBytes
}

// fail records video k's failure and finishes the branch that found it;
// its other branch, if any, still finishes but the first failure stays.
func (x *extraction) fail(k int, fail string, err error) {
	x.mu.Lock()
	if x.vids[k].fail == "" {
		x.vids[k].err, x.vids[k].fail = err, fail
	}
	x.mu.Unlock()
	x.finish(k)
}

// send puts w on q, or returns ctx's error if ctx ends first.
func send[T any](ctx context.Context, q chan<- T, w T) error {
	select {
	case q <- w:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// frameMemory is the device memory one frame of an inference run claims.
func (o *Options) frameMemory(frameLen int) uint64 {
	if o.FrameMemory > 0 {
		return o.FrameMemory
	}
	return 16 * 4 * uint64(frameLen)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// work is one video moving through the stages.
type work struct {
	k      int // index into the videos given to pipeline
	video  *Video
	plan   *planSampler
	frames []imageprep.Frame // copies of the decoded frames
	pixels []float32         // preprocessed, one FrameLen per frame
}

// vlmWork is one decoded video on its way to vlm_reader: every frame the
// decoder took, by time.
type vlmWork struct {
	k      int
	info   decode.Info
	row    map[time.Duration]int
	frames []imageprep.Frame
}

// busy adds up the working time of a stage's goroutines.
type busy struct {
	mu sync.Mutex
	m  map[string]time.Duration
}

func (b *busy) add(stage string, since time.Time) {
	b.mu.Lock()
	b.m[stage] += time.Since(since)
	b.mu.Unlock()
}
