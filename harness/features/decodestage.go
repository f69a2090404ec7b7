package features

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// decodeVideos is the pipeline's first stage. In: every video of x.vids,
// each handed to the decoders (Options.Decode) once, at the union of the
// frame times its caches lacked (decodeJobs). Out: for each video that
// needs features, a *work on prepQ with copies of its image tower frames;
// for each that needs VLM scores, a *vlmWork on vlmQ with every frame the
// decoder took. The decoders hand their results over in job order, so
// both queues see the videos in plan order whatever the number of
// decoders. A video that fails to decode fails its items (every branch it
// needed is finished) and the stage goes on. It returns an error that
// stops the run (a decoder pool error, a plan frame not decoded) or ctx's
// error when ctx ends while it waits on a queue; it leaves the queues
// open (the caller closes them when it returns).
func (x *extraction) decodeVideos(ctx context.Context, prepQ chan<- *work, vlmQ chan<- *vlmWork) error {
	pool := x.opt.Decode
	jobs := x.decodeJobs()
	x.counts.Lock()
	x.st.Opened += len(jobs)
	x.counts.Unlock()
	t0 := time.Now()
	return pool.Run(ctx, jobs, func(r *decode.Result) error {
		x.bz.add("decode", t0)
		defer func() { t0 = time.Now() }()
		return x.decoded(ctx, r, prepQ, vlmQ)
	})
}

// decodeJobs is one decode.Job per video of x.vids, in their order: the
// frames of what its caches lacked (decodePlan). With the GPU frame path
// the image tower's frames are decoded on the device, so the host decodes
// only those a set captions (captionPlan).
func (x *extraction) decodeJobs() []decode.Job {
	jobs := make([]decode.Job, len(x.vids))
	onDevice := len(x.opt.DeviceImage) > 0
	for k, p := range x.vids {
		dp := decodePlan{}
		switch {
		case p.needFeat && onDevice && p.plan.captions():
			dp.feat = captionPlan{p.plan}
		case p.needFeat && !onDevice:
			dp.feat = p.plan
		}
		if p.needVLM {
			dp.vlm = p.vplan
		}
		jobs[k] = decode.Job{Path: p.video.Path, Sampler: dp, Size: x.opt.Size}
	}
	return jobs
}

// decoded takes one decoder result of decodeVideos: a failure is recorded
// against each branch the video needed; the frames' buffers are taken
// from the pool (within Options.FrameBytes), counted, and sent on to vlmQ
// and prepQ.
func (x *extraction) decoded(ctx context.Context, r *decode.Result, prepQ chan<- *work, vlmQ chan<- *vlmWork) error {
	p := x.vids[r.Index]
	if r.Err != nil {
		fail := decodeFailure(r.Err)
		if p.needFeat {
			x.fail(r.Index, fail, r.Err)
		}
		if p.needVLM {
			x.fail(r.Index, fail, r.Err)
		}
		return nil
	}
	x.mu.Lock()
	p.duration = r.Info.Duration
	x.mu.Unlock()
	// The copies wait for room within Options.FrameBytes (the pool then
	// waits too), so that full-size frames never pile up in the queues.
	if err := x.hold(ctx, r.Index, r.Frames); err != nil {
		return err
	}
	row := make(map[time.Duration]int, len(r.Times))
	frames := make([]imageprep.Frame, len(r.Frames))
	for j := range r.Frames {
		// The frame's buffer is taken from the pool (decode.Pool.Run), not
		// copied: no second copy of a full-size frame, and the pool's idle
		// results hold no frames.
		f := &r.Frames[j]
		row[r.Times[j]] = j
		frames[j] = imageprep.Frame{Pix: f.RGB, Width: f.Width, Height: f.Height, Stride: 3 * f.Width}
		f.RGB = nil
	}
	x.countDecoded(r.Set, len(frames))
	if p.needVLM {
		if err := send(ctx, vlmQ, &vlmWork{k: r.Index, info: r.Info, row: row, frames: frames}); err != nil {
			return err
		}
	}
	if !p.needFeat {
		return nil
	}
	// The image tower's rows are the frames of its own plan only.
	ts, err := p.plan.Times(r.Info, decode.Clip{}, 0)
	if err != nil {
		x.fail(r.Index, string(decode.KindCorrupt), err)
		return nil
	}
	w := &work{k: r.Index, plan: p.plan, video: &Video{Path: p.video.Path, Key: p.video.Key, Info: r.Info, Times: ts}}
	// With the GPU frame path only the captioned frames were decoded
	// here: the others are left empty.
	w.frames = make([]imageprep.Frame, len(ts))
	for i, t := range ts {
		j, ok := row[t]
		if !ok && len(x.opt.DeviceImage) == 0 {
			return fmt.Errorf("features: frame at %v of the plan of %s was not decoded", t, p.video.Path)
		}
		if ok {
			w.frames[i] = frames[j]
		}
	}
	return send(ctx, prepQ, w)
}

// countDecoded counts n frames the host decoders of device set returned.
func (x *extraction) countDecoded(set, n int) {
	x.counts.Lock()
	x.st.FramesDecoded += n
	if set < len(x.st.DecodedByDevice) {
		x.st.DecodedByDevice[set] += n
	}
	x.counts.Unlock()
	if x.opt.Devices != nil && set < len(x.opt.Devices.Devices()) {
		x.opt.Devices.Count(set, "decode", n)
	}
	x.progress("frames", n)
}

// decodeFailure names why a video could not be decoded.
func decodeFailure(err error) string {
	if k := decode.KindOf(err); k != "" {
		return string(k)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return FailureMissing
	}
	return string(decode.KindCorrupt)
}

// decodePlan is what one video's decoder takes: the union of the frame
// times of what the caches lacked, the image tower's and the VLM's, so that
// the video is opened and decoded once.
type decodePlan struct {
	feat decode.Sampler // nil when the features are cached; with the GPU frame path, a captionPlan
	vlm  seededPlan     // nil when the VLM scores are cached
}

func (d decodePlan) Times(in decode.Info, clip decode.Clip, seed uint64) ([]time.Duration, error) {
	var all []time.Duration
	if d.feat != nil {
		ts, err := d.feat.Times(in, clip, seed)
		if err != nil {
			return nil, err
		}
		all = ts
	}
	if d.vlm != nil {
		ts, err := d.vlm.Times(in, clip, seed)
		if err != nil {
			return nil, err
		}
		all = append(all, ts...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

func (d decodePlan) String() string {
	var parts []string
	if d.feat != nil {
		parts = append(parts, d.feat.String())
	}
	if d.vlm != nil {
		parts = append(parts, d.vlm.String())
	}
	return strings.Join(parts, "+")
}
