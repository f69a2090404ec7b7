package features

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// A DeviceImageEncoder is the image tower on one GPU fed by NVDEC with no
// host copy (the GPU frame path, Options.DeviceImage): the frames of a
// video are decoded on the device, resized and normalised there, and only
// their embeddings come back.
type DeviceImageEncoder interface {
	// EmbedVideo returns one unit embedding per time of times (in that
	// order) of the video at path, decoded with opt. An error wrapping
	// decode.ErrNotOnDevice says this video cannot take the device path
	// (rotated or anamorphic, 10-bit, a codec NVDEC lacks): its host
	// frames are embedded instead. An error with a decode.Kind fails the
	// video as the host path's decoder would; any other stops the run.
	EmbedVideo(ctx context.Context, path string, opt decode.Options, times []time.Duration) ([][]float32, error)
}

// NVDECTower is the DeviceImageEncoder of models.DeviceFrames: each video
// is opened on NVDEC (opt.GPU must decode on the device's primary context:
// decode.NewSharedGPU) and its pictures go from the decoder's surfaces
// through DeviceFrames.EmbedDecoded. Like a DeviceFrames, it is used by
// one goroutine at a time.
type NVDECTower struct {
	Frames interface {
		EmbedDecoded(ctx context.Context, n int, visit models.NV12Visitor) ([][]float32, error)
	}
}

// EmbedVideo implements DeviceImageEncoder.
func (t NVDECTower) EmbedVideo(ctx context.Context, path string, opt decode.Options, times []time.Duration) ([][]float32, error) {
	dec, err := decode.Open(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	return t.Frames.EmbedDecoded(ctx, len(times), func(yield func(int, nv12.Frame) error) error {
		return dec.FramesOnDevice(ctx, times, yield)
	})
}

// captionPlan is what the host decoders take of a video whose image tower
// frames take the GPU frame path: only the frames a set captions, since the
// captioner reads host frames.
type captionPlan struct{ p *planSampler }

func (c captionPlan) Times(in decode.Info, _ decode.Clip, seed uint64) ([]time.Duration, error) {
	want, err := c.p.captionTimes(in, seed)
	if err != nil {
		return nil, err
	}
	all, err := c.p.Times(in, decode.Clip{}, seed)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, t := range all {
		if want[t] {
			out = append(out, t)
		}
	}
	return out, nil
}

func (c captionPlan) String() string { return "captions-of-" + c.p.String() }

// embedOnDevice embeds w's frames with device d's DeviceImageEncoder. A
// video it refuses (decode.ErrNotOnDevice, returned as refused) is decoded
// to the host and embedded there as the host path embeds it; the caller
// caches it under the host path's name (Options.HostImageName).
func embedOnDevice(ctx context.Context, opt *Options, d int, w *work) (embs [][]float32, refused, err error) {
	dopt := opt.Decode.Options
	if d < len(opt.Decode.GPUs) {
		dopt.GPU = opt.Decode.GPUs[d]
	}
	embs, err = opt.DeviceImage[d].EmbedVideo(ctx, w.video.Path, dopt, w.video.Times)
	if errors.Is(err, decode.ErrNotOnDevice) {
		refused = err
		embs, err = embedHost(ctx, opt, d, dopt, w)
	}
	if err == nil && len(embs) != len(w.video.Times) {
		err = fmt.Errorf("features: %d embeddings for %d frames of %s", len(embs), len(w.video.Times), w.video.Path)
	}
	return embs, refused, err
}

// embedHost is the host path for one video: its frames decoded at
// opt.Size, preprocessed by opt.Prep and embedded by device d's Session in
// runs of at most MaxBatch frames, none of one (padSingle), so each row
// is the one the host path's inference stage gives it.
func embedHost(ctx context.Context, opt *Options, d int, dopt decode.Options, w *work) ([][]float32, error) {
	dec, err := decode.Open(ctx, w.video.Path, dopt)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	frames, err := dec.Frames(ctx, w.video.Times, opt.Size, nil)
	if err != nil {
		return nil, err
	}
	imgs := make([]imageprep.Frame, len(frames))
	for i, f := range frames {
		imgs[i] = imageprep.Frame{Pix: f.RGB, Width: f.Width, Height: f.Height, Stride: 3 * f.Width}
	}
	frameLen := opt.Prep.FrameLen()
	pix := make([]float32, len(imgs)*frameLen)
	if err := opt.Prep.Batch(ctx, imgs, pix); err != nil {
		return nil, fmt.Errorf("features: preprocess %s: %w", w.video.Path, err)
	}
	h, wd := opt.Prep.OutputSize()
	maxBatch := opt.MaxBatch
	if maxBatch <= 0 {
		maxBatch = 32
	}
	var out [][]float32
	lo := 0
	for _, size := range runSizes(len(imgs), maxBatch) {
		e, err := opt.Image[d].EmbedImages(ctx, padSingle(models.ImageBatch{N: size, C: 3, H: h, W: wd, Data: pix[lo*frameLen : (lo+size)*frameLen]}))
		if err != nil {
			return nil, fmt.Errorf("features: image tower (device %d): %w", d, err)
		}
		if len(e) < size {
			return nil, fmt.Errorf("features: image tower returned %d embeddings for %d frames", len(e), size)
		}
		out = append(out, e[:size]...)
		lo += size
	}
	return out, nil
}

// inferOnDevice is device d's inference stage on the GPU frame path, in
// place of embedFrames. In: videos from in (device d's queue), with only
// their captioned frames decoded on the host. One video at a time (the
// device path batches the frames of one video, so a frame's run, and its
// embedding, depend on its video alone), under a lease of device d's
// budget, is decoded and embedded on the device (embedOnDevice); a video
// the device refuses is embedded from host frames and keyed under the host
// path's name. Out: each video with its Embeddings, on storeQ. A video
// that fails to decode (a decode.Kind) or has a non-finite embedding fails
// its own items and is not sent on. It returns when in is closed and
// drained, with any other error of the device pool or the tower, which
// stops the run, or with ctx's error once ctx ends.
func (x *extraction) inferOnDevice(ctx context.Context, d int, in <-chan *work, storeQ chan<- *work) error {
	opt := x.opt
	for w := range in {
		n := len(w.video.Times)
		lease, err := x.deviceLease(ctx, d, n)
		if err != nil {
			return err
		}
		t0 := time.Now()
		embs, refused, err := embedOnDevice(ctx, opt, d, w)
		if lease != nil {
			lease.Release()
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if k := decode.KindOf(err); k != "" {
				x.fail(w.k, string(k), err)
				continue
			}
			return fmt.Errorf("features: image tower on the GPU frame path (device %d): %s: %w", d, w.video.Path, err)
		}
		x.bz.add("infer", t0)
		x.countOnDevice(d, w, refused)
		if refused != nil {
			host := *opt
			host.ImageName = opt.HostImageName
			w.video.Key = videoKey(x.vids[w.k].hash, w.plan, &host)
		}
		m := kernels.NewMatrix(n, opt.Image[d].Dim())
		for r := range n {
			copy(m.Row(r), embs[r])
		}
		// As on the host path: a non-finite row fails the video's items
		// and nothing of it is cached.
		var nf *kernels.NonFiniteError
		if err := kernels.CheckFinite(m); errors.As(err, &nf) {
			x.fail(w.k, FailureNonFinite, fmt.Errorf("image tower gave a non-finite embedding for %s at %v: %w", w.video.Path, w.video.Times[nf.Row], err))
			continue
		} else if err != nil {
			return err
		}
		w.video.Embeddings = m
		if err := send(ctx, storeQ, w); err != nil {
			return err
		}
	}
	return nil
}

// deviceLease holds device d's budget for a video of n frames on the GPU
// frame path (at most a run's worth: runFrames); nil without a pool.
func (x *extraction) deviceLease(ctx context.Context, d, n int) (*gpu.Lease, error) {
	opt := x.opt
	if opt.Devices == nil {
		return nil, nil
	}
	need := gpu.Need{Memory: uint64(min(n, x.runFrames)) * opt.frameMemory(x.frameLen), Pinned: true, Slot: d, Work: "image_text", Units: n}
	lease, err := opt.Devices.Acquire(ctx, need)
	if err != nil {
		return nil, fmt.Errorf("features: image tower on %s: %d frames: %w", opt.Devices.Devices()[d].ID(), n, err)
	}
	return lease, nil
}

// countOnDevice counts the frames of w device d embedded: on the device
// (refused nil) they were decoded there too; else the host decoded them
// and the refusal is counted.
func (x *extraction) countOnDevice(d int, w *work, refused error) {
	st := x.st
	n := len(w.video.Times)
	x.counts.Lock()
	st.FramesByDevice[d] += n
	st.FramesEmbedded += n
	if refused == nil {
		st.FramesOnDevice += n
		st.FramesDecoded += n
		if d < len(st.DecodedByDevice) {
			st.DecodedByDevice[d] += n
		}
	} else {
		st.DeviceRefused++
		if st.DeviceRefusal == "" {
			st.DeviceRefusal = refused.Error()
		}
	}
	x.counts.Unlock()
	if refused == nil {
		if x.opt.Devices != nil {
			x.opt.Devices.Count(d, "decode", n)
		}
		x.progress("frames", n)
	}
	x.progress("embedded", n)
}
