package decode

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// A Job asks for the frames of one video.
type Job struct {
	Path    string
	Clip    Clip
	Sampler Sampler
	Seed    uint64 // the item's seed, for seeded samplers
	Size    Size
}

// A Result is what a Pool made of one Job.
type Result struct {
	Job    Job
	Index  int // the job's position in the slice given to Run
	Info   Info
	Times  []time.Duration // what the sampler asked for
	Frames []Frame         // one per time, in the same order
	Stats  Stats
	// Set is the worker set (the device, Pool.Sets) that decoded the job.
	Set int
	// Err is why this video failed: a *VideoError for a bad video (see
	// KindOf), or the sampler's error. Other jobs are not affected.
	Err error
}

// A Pool decodes many videos at once with a bounded number of decoders.
// Its zero value is ready to use and sizes itself from the core count.
//
// Run hands results to its caller in job order, whatever the worker
// count, so a run's output does not depend on how many decoders it used;
// at most Workers+Queue results exist at any time, so memory stays bounded
// however many jobs there are.
//
// With Sets, the decoders form one worker set per device of a
// multi-device run, each on its own GPU (GPUs); they take jobs from one
// queue, so a set that finishes early takes the next video and every device
// stays busy, and the results still come in job order.
type Pool struct {
	// Workers is how many videos are decoded at once; 0 means one per core.
	Workers int
	// Threads is FFmpeg's thread count per decoder; 0 shares the cores
	// among the workers (at least one each).
	Threads int
	// Queue is how many finished or waiting jobs may wait beyond those
	// being decoded; 0 means 2*Workers.
	Queue int
	// Options apply to every decoder; Options.Timeout is the per-video
	// deadline, covering its opening and decoding. With HWAccel "cuda" and
	// no Options.GPU, Run opens CUDA device 0 for its decoders.
	Options Options
	// Notify, if set, is told once about each distinct reason the pool's
	// decoders fell back from NVDEC to the CPU.
	Notify func(msg string)
	// Sets splits the decoders into that many worker sets, one per device
	// (0 or 1: one set): worker w belongs to set w mod Sets, and Workers is
	// raised to Sets when below it. Each Result names its Set.
	Sets int
	// GPUs, with Options.HWAccel "cuda", holds the GPU of each set (one
	// per set, in set order): set d opens its decoders on GPUs[d]'s NVDEC.
	// Empty: every set uses Options.GPU.
	GPUs []*GPU
}

func (p *Pool) sizes() (workers, threads, window int) {
	workers = p.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(workers, p.Sets)
	threads = p.Threads
	if threads <= 0 {
		threads = max(1, runtime.NumCPU()/workers)
	}
	queue := p.Queue
	if queue <= 0 {
		queue = 2 * workers
	}
	return workers, threads, workers + queue
}

// Run decodes every job and calls yield with each result, in job order,
// from the goroutine that called Run. A failed video is reported in its
// Result and the run goes on. yield must not keep r.Frames (or their RGB
// buffers) after it returns: Run reuses them for later jobs. It may take a
// frame's RGB buffer instead, setting that frame's RGB to nil: Run then
// allocates a new one where it needs it, so that a consumer holding large
// frames spares a copy and an idle result holds none; several
// consumers can all read one result inside yield.
//
// Run returns the first error yield returns, or ctx's error when ctx is
// cancelled, after every decoder has stopped; otherwise nil.
func (p *Pool) Run(ctx context.Context, jobs []Job, yield func(r *Result) error) error {
	workers, threads, window := p.sizes()
	sets := max(1, p.Sets)
	if len(p.GPUs) > 0 && len(p.GPUs) != sets {
		return fmt.Errorf("decode pool: %d GPUs for %d worker sets", len(p.GPUs), sets)
	}
	opt := p.Options
	opt.Threads = threads
	timeout := opt.Timeout
	opt.Timeout = 0
	if opt.HWAccel == "cuda" && opt.GPU == nil && len(p.GPUs) == 0 {
		opt.GPU = NewGPU(0)
		defer opt.GPU.Close()
	}
	var notice fallbackNotice

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, window) // one token per job started and not yet yielded
	todo := make(chan int)
	slots := make([]chan *Result, window) // job i's result waits in slots[i%window]
	for i := range slots {
		slots[i] = make(chan *Result, 1)
	}
	free := make(chan *Result, window+workers) // results whose buffers can be reused

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // feeder
		defer wg.Done()
		defer close(todo)
		for i := range jobs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		set := w % sets
		opt := opt
		if len(p.GPUs) > 0 {
			opt.GPU = p.GPUs[set]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range todo {
				var r *Result
				select {
				case r = <-free:
				default:
					r = new(Result)
				}
				p.decodeJob(ctx, jobs[i], i, opt, timeout, r)
				r.Set = set
				if reason := r.Stats.fallback; reason != "" && p.Notify != nil && notice.first(reason) {
					p.Notify(fmt.Sprintf("decode: NVDEC not used (%s); decoding on the CPU, first seen with %s", reason, jobs[i].Path))
				}
				slots[i%window] <- r
			}
		}()
	}
	stop := func(err error) error {
		cancel()
		wg.Wait()
		return err
	}
	for i := range jobs {
		var r *Result
		select {
		case r = <-slots[i%window]:
		case <-ctx.Done():
			return stop(ctx.Err())
		}
		// select picks at random among ready cases, so a result finished
		// before the cancellation can win over ctx.Done: check again, so
		// that nothing is yielded once ctx is done.
		if ctx.Err() != nil {
			return stop(ctx.Err())
		}
		if err := yield(r); err != nil {
			return stop(err)
		}
		select {
		case free <- r:
		default:
		}
		<-sem
	}
	return stop(nil)
}

// decodeJob fills r for job, reusing r's frame buffers.
func (p *Pool) decodeJob(ctx context.Context, job Job, index int, opt Options, timeout time.Duration, r *Result) {
	frames := r.Frames
	*r = Result{Job: job, Index: index, Frames: frames[:0]}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if job.Sampler == nil {
		r.Err = fmt.Errorf("decode %s: job has no sampler", job.Path)
		return
	}
	d, err := Open(ctx, job.Path, opt)
	if err != nil {
		r.Err = err
		return
	}
	defer d.Close()
	r.Info = d.Info()
	if r.Times, err = job.Sampler.Times(r.Info, job.Clip, job.Seed); err != nil {
		r.Err = err
		r.Stats.fallback = d.Fallback()
		return
	}
	r.Frames, err = d.Frames(ctx, r.Times, job.Size, frames)
	r.Stats = d.Stats()
	r.Stats.fallback = d.Fallback()
	if err != nil {
		r.Err = err
		if errors.Is(err, context.Canceled) {
			r.Frames = r.Frames[:0]
		}
	}
}
