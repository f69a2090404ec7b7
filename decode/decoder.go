package decode

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/asticode/go-astiav"
)

// Frame is one decoded picture as packed RGB24 (3 bytes per pixel, rows
// top to bottom, no padding), turned upright for display.
type Frame struct {
	// PTS is when the frame is shown, from the start of the file.
	PTS time.Duration
	// Index is the frame's number in the video, counted from its first
	// frame at the average frame rate (exact for constant frame rates).
	Index         int
	Width, Height int
	RGB           []byte
}

// Options configure a Decoder. The zero value decodes on the CPU with one
// thread per core and no deadline.
type Options struct {
	// Threads is the number of FFmpeg decoding threads; 0 means one per
	// core (runtime.NumCPU).
	Threads int
	// HWAccel selects hardware decoding: "" or "none" for the CPU, "cuda"
	// for NVDEC. When NVDEC cannot take the video (no driver, no GPU, or a
	// codec it lacks such as AV1 on Hopper), the decoder falls back to the
	// CPU and says why in Decoder.Fallback.
	HWAccel string
	// GPU is the CUDA device to decode on, shared by decoders (see
	// NewGPU); nil means device 0, opened for this decoder alone.
	GPU *GPU
	// Timeout bounds each Frames call and the Open; a decoder that stops
	// making progress fails with KindTimeout instead of hanging. 0: none.
	Timeout time.Duration
}

// Stats count the decoder's work, to check that sparse sampling decodes
// little: no GOP twice, nothing after the last target of a GOP.
type Stats struct {
	PacketsSent   int // packets given to the decoder
	FramesDecoded int // frames the decoder produced
	FramesOut     int // frames returned to the caller
	Seeks         int // av_seek_frame calls
	Backoffs      int // seeks that had to step back one more keyframe
	DecodeErrors  int // packets the decoder rejected (concealed, as ffmpeg does)
	// PacketsSkippable counts packets read while the decoder was told to
	// skip them if no other frame refers to them (no target lies in them).
	PacketsSkippable int
	// PacketsDropped counts the skippable packets whose NAL headers showed
	// an unreferenced H.264 picture, so they never reached the decoder.
	PacketsDropped int

	fallback string // why NVDEC was not used, for Pool's notice
}

// A Decoder returns frames of one video at requested times. It is not safe
// for concurrent use; use one per goroutine (Pool does).
type Decoder struct {
	src      *source
	cc       *astiav.CodecContext
	opt      Options
	hw       *hwDecoder // nil on the CPU path
	fallback string

	pkt              *astiav.Packet
	recv, cand, pend *astiav.Frame
	haveCand         bool
	havePend         bool
	candPTS, pendPTS int64
	candDur          int64
	demuxEOF         bool // the demuxer has no more packets; the drain packet was sent
	drained          bool // the decoder has returned every frame
	seekKey          int  // keyframe the decoder last started from (-1: the file start)
	lastErr          error
	// frameNo counts the frames decoded since the last (re)start, to time
	// the frames of an untimed stream.
	frameNo int
	// targets are this Frames call's timestamps, ascending, for deciding
	// which packets may skip decoding; skipping is the decoder's state.
	targets  []int64
	skipping bool

	scaler  rgbScaler
	scratch []byte
	stats   Stats
}

// Open opens path for decoding. Failures are *VideoError, or the context's
// error wrapped when ctx was cancelled.
func Open(ctx context.Context, path string, opt Options) (*Decoder, error) {
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	src, err := openSource(ctx, path)
	if err != nil {
		return nil, err
	}
	d := &Decoder{src: src, opt: opt, seekKey: -1}
	if err := d.openCodec(); err != nil {
		d.Close()
		return nil, err
	}
	d.pkt = astiav.AllocPacket()
	d.recv, d.cand, d.pend = astiav.AllocFrame(), astiav.AllocFrame(), astiav.AllocFrame()
	return d, nil
}

func (d *Decoder) openCodec() error {
	path, st := d.src.path, d.src.st
	cp := st.CodecParameters()
	if d.opt.HWAccel == "cuda" {
		hw, cc, why := openNVDEC(d.opt.GPU, st)
		if why == "" {
			d.hw, d.cc = hw, cc
			return d.finishCodec(cc)
		}
		d.fallback = why
	} else if d.opt.HWAccel != "" && d.opt.HWAccel != "none" {
		return fmt.Errorf("decode %s: unknown hwaccel %q (want none or cuda)", path, d.opt.HWAccel)
	}
	codec := astiav.FindDecoder(cp.CodecID())
	if codec == nil {
		return videoErr(path, KindUnsupportedCodec, "this FFmpeg has no decoder for codec %q", cp.CodecID().Name())
	}
	cc := astiav.AllocCodecContext(codec)
	if cc == nil {
		return fmt.Errorf("decode %s: cannot allocate a codec context", path)
	}
	d.cc = cc
	if err := cp.ToCodecContext(cc); err != nil {
		return &VideoError{Path: path, Kind: KindCorrupt, Err: fmt.Errorf("codec parameters: %w", err)}
	}
	threads := d.opt.Threads
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	cc.SetThreadCount(threads)
	cc.SetThreadType(astiav.ThreadTypeFrame | astiav.ThreadTypeSlice)
	setCodecLogID(cc, d.src.logID) // before Open, which copies it to the frame threads
	if err := cc.Open(codec, nil); err != nil {
		kind := KindCorrupt
		if errors.Is(err, astiav.ErrPatchwelcome) || errors.Is(err, astiav.ErrDecoderNotFound) || errors.Is(err, astiav.ErrExperimental) {
			kind = KindUnsupportedCodec
		}
		return &VideoError{Path: path, Kind: kind, Err: fmt.Errorf("open %s decoder: %w", codec.Name(), err)}
	}
	return d.finishCodec(cc)
}

func (d *Decoder) finishCodec(cc *astiav.CodecContext) error {
	if err := checkCodecContextLayout(cc); err != nil {
		return fmt.Errorf("decode %s: %w", d.src.path, err)
	}
	setPacketTimeBase(cc, d.src.st)
	setCodecLogID(cc, d.src.logID) // NVDEC's context, opened elsewhere
	return nil
}

// Info returns what probing the video found.
func (d *Decoder) Info() Info { return d.src.info }

// Stats returns the work counted since Open.
func (d *Decoder) Stats() Stats { return d.stats }

// Fallback is empty when the decoder runs where Options asked, and
// otherwise says why it fell back to the CPU.
func (d *Decoder) Fallback() string { return d.fallback }

// Close frees everything the decoder holds. It is safe to call twice.
func (d *Decoder) Close() error {
	for _, f := range []**astiav.Frame{&d.recv, &d.cand, &d.pend} {
		if *f != nil {
			(*f).Free()
			*f = nil
		}
	}
	if d.pkt != nil {
		d.pkt.Free()
		d.pkt = nil
	}
	if d.cc != nil {
		if d.hw != nil {
			d.cc.SetPixelFormatCallback(nil) // drop go-astiav's global entry for it
		}
		d.cc.Free()
		d.cc = nil
	}
	if d.hw != nil {
		d.hw.free()
		d.hw = nil
	}
	d.scaler.free()
	if d.src != nil {
		d.src.close()
		d.src = nil
	}
	return nil
}

// Frames decodes the frame shown at each of times: the last frame whose
// presentation time is at or before it (the one on screen at that moment),
// or the first frame for a time before it. Times past the last frame give
// the last frame, unless the file is shorter than it declares, which is a
// KindTruncated error. The frames come back in the order of times, resized
// to size; dst's frames and their RGB buffers are reused when large
// enough, so a caller that passes the previous result back allocates
// no pixel buffers.
//
// Times are visited in increasing order whatever their order in times
// (a later call may ask for earlier times: the decoder seeks back), and
// within a call each GOP is decoded at most once: the decoder seeks (to the target's
// keyframe, then flushes) only when the target lies in a later GOP than the
// one being decoded, and stops a GOP after its last target.
func (d *Decoder) Frames(ctx context.Context, times []time.Duration, size Size, dst []Frame) ([]Frame, error) {
	if d.src == nil {
		return dst, fmt.Errorf("decode: Frames on a closed Decoder")
	}
	if d.opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.opt.Timeout)
		defer cancel()
	}
	defer d.src.watch(ctx)()

	if cap(dst) < len(times) {
		dst = append(dst[:cap(dst)], make([]Frame, len(times)-cap(dst))...)
	}
	dst = dst[:len(times)]
	order := make([]int, len(times))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return times[order[a]] < times[order[b]] })

	d.targets = d.targets[:0]
	for _, i := range order {
		d.targets = append(d.targets, d.src.toTimestamp(times[i]))
	}
	ow, oh := size.Of(d.src.info.DisplaySize())
	prev := -1
	var prevPTS int64
	for _, i := range order {
		ts := d.src.toTimestamp(times[i])
		f, pts, err := d.frameAt(ctx, ts)
		if err != nil {
			return dst, err
		}
		out := &dst[i]
		if prev >= 0 && pts == prevPTS {
			// The same frame again: copy the converted pixels.
			p := &dst[prev]
			out.PTS, out.Index, out.Width, out.Height = p.PTS, p.Index, p.Width, p.Height
			out.RGB = append(out.RGB[:0], p.RGB...)
		} else if err := d.convert(f, pts, ow, oh, out); err != nil {
			return dst, err
		}
		prev, prevPTS = i, pts
		d.stats.FramesOut++
	}
	return dst, nil
}

// keyBefore is the index of the last keyframe at or before ts, or 0.
func (d *Decoder) keyBefore(ts int64) int {
	keys := d.src.keys
	k := sort.Search(len(keys), func(i int) bool { return keys[i] > ts }) - 1
	return max(k, 0)
}

// frameAt advances the decoder to the frame shown at ts and returns it
// with its presentation timestamp.
func (d *Decoder) frameAt(ctx context.Context, ts int64) (*astiav.Frame, int64, error) {
	if !d.src.seekable {
		if err := d.linearStart(ctx, ts); err != nil {
			return nil, 0, err
		}
		return d.advance(ctx, ts)
	}
	k := d.keyBefore(ts)
	if d.haveCand && d.candPTS > ts {
		// An earlier Frames call left the decoder past ts (within a call
		// times ascend): go back, or the frame in hand would answer.
		if err := d.seek(ctx, k); err != nil {
			return nil, 0, err
		}
		return d.advance(ctx, ts)
	}
	cur := d.seekKey
	switch {
	case d.havePend:
		cur = d.keyBefore(d.pendPTS)
	case d.haveCand:
		cur = d.keyBefore(d.candPTS)
	}
	if cur < 0 { // nothing read yet
		if !d.src.atStart || k > 0 {
			if err := d.seek(ctx, k); err != nil {
				return nil, 0, err
			}
		} else {
			d.seekKey = 0
		}
	} else if k > cur {
		if err := d.seek(ctx, k); err != nil {
			return nil, 0, err
		}
	}
	return d.advance(ctx, ts)
}

// linearStart readies a stream that cannot seek by time for the frame at
// ts: it rewinds to the start when nothing was decoded since the probe's
// scan, or when ts lies before the frame in hand; otherwise decoding goes
// on forward from where it is.
func (d *Decoder) linearStart(ctx context.Context, ts int64) error {
	switch {
	case d.haveCand:
		if d.candPTS <= ts {
			return nil
		}
	case d.havePend:
		if d.seekKey == 0 { // the first frame since the start: it answers ts
			return nil
		}
	case d.src.atStart || d.seekKey == 0 && !d.drained:
		d.seekKey = 0
		return nil
	}
	return d.rewind(ctx)
}

// rewind goes back to the first byte of the file and flushes the decoder.
func (d *Decoder) rewind(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return d.src.ctxOr(ctx, err)
	}
	d.stats.Seeks++
	if err := d.src.fc.SeekFrame(d.src.st.Index(), 0, astiav.NewSeekFlags(astiav.SeekFlagByte, astiav.SeekFlagBackward)); err != nil {
		return d.src.ctxOr(ctx, &VideoError{Path: d.src.path, Kind: KindCorrupt, Err: fmt.Errorf("rewind to the start: %w", err)})
	}
	d.reset(0)
	return nil
}

// reset flushes the decoder after a seek to keyframe k.
func (d *Decoder) reset(k int) {
	flushDecoder(d.cc)
	d.cand.Unref()
	d.pend.Unref()
	d.haveCand, d.havePend, d.demuxEOF, d.drained = false, false, false, false
	d.seekKey = k
	d.frameNo = 0
	d.src.atStart = false
}

// advance decodes forward to the frame shown at ts.
func (d *Decoder) advance(ctx context.Context, ts int64) (*astiav.Frame, int64, error) {
	for {
		if d.haveCand && d.candPTS <= ts {
			if d.havePend && d.pendPTS > ts ||
				!d.havePend && (d.drained || d.src.cfr && d.candDur > 0 && d.candPTS+d.candDur > ts) {
				if d.drained && !d.havePend {
					if err := d.checkEnd(ts); err != nil {
						return nil, 0, err
					}
				}
				return d.cand, d.candPTS, nil
			}
		}
		if d.havePend && d.pendPTS <= ts {
			d.promote()
			continue
		}
		if d.havePend { // the next frame is past ts with nothing before it
			if !d.haveCand && d.seekKey > 0 {
				// The keyframe's time overstated where the GOP starts (an
				// index of decode times, or open GOPs): step back one.
				d.stats.Backoffs++
				if err := d.seek(ctx, d.seekKey-1); err != nil {
					return nil, 0, err
				}
				continue
			}
			if !d.haveCand {
				d.promote() // ts precedes the first frame: return the first frame
			}
			return d.cand, d.candPTS, nil
		}
		if d.drained {
			if d.haveCand {
				return d.cand, d.candPTS, d.checkEnd(ts)
			}
			return nil, 0, d.noFrames()
		}
		if err := d.receive(ctx); err != nil {
			return nil, 0, err
		}
	}
}

// promote makes the pending frame the candidate.
func (d *Decoder) promote() {
	d.cand, d.pend = d.pend, d.cand
	d.pend.Unref()
	d.candPTS, d.haveCand, d.havePend = d.pendPTS, true, false
	d.candDur = frameDuration(d.cand)
}

// checkEnd fails when ts asks for a time the file should hold but does
// not: it ended more than a second (and two frames) before its declared end.
func (d *Decoder) checkEnd(ts int64) error {
	in := d.src.info
	last := d.src.toDuration(d.candPTS)
	slack := time.Second
	if in.FrameRate > 0 {
		slack += time.Duration(2 / in.FrameRate * 1e9)
	}
	want := d.src.toDuration(ts)
	if want > last+slack && in.End() > last+slack {
		err := fmt.Errorf("frames end at %.3fs but the video declares %.3fs", last.Seconds(), in.End().Seconds())
		if d.lastErr != nil {
			err = fmt.Errorf("%w (last FFmpeg error: %w)", err, d.lastErr)
		}
		return &VideoError{Path: d.src.path, Kind: KindTruncated, Err: err}
	}
	return nil
}

// noFrames reports a GOP that yielded no frame at all: a truncated file
// when its container declares more bytes than it holds, else corrupt.
func (d *Decoder) noFrames() error {
	err := errors.New("no frame decoded")
	if d.lastErr != nil {
		err = fmt.Errorf("%w: %w", err, d.lastErr)
	}
	if short, _ := declaresMoreThanHeld(d.src.path); short {
		return &VideoError{Path: d.src.path, Kind: KindTruncated, Err: fmt.Errorf("%w (the file ends before its container declares)", err)}
	}
	return &VideoError{Path: d.src.path, Kind: KindCorrupt, Err: err}
}

// seek moves to keyframe k and flushes the decoder.
func (d *Decoder) seek(ctx context.Context, k int) error {
	if err := ctx.Err(); err != nil {
		return d.src.ctxOr(ctx, err)
	}
	d.stats.Seeks++
	err := d.src.fc.SeekFrame(d.src.st.Index(), d.src.keys[k], astiav.NewSeekFlags(astiav.SeekFlagBackward))
	if err != nil {
		return d.src.ctxOr(ctx, &VideoError{Path: d.src.path, Kind: KindCorrupt, Err: fmt.Errorf("seek to %.3fs: %w", d.src.toDuration(d.src.keys[k]).Seconds(), err)})
	}
	d.reset(k)
	return nil
}

// maxDecodeErrors is how many rejected packets in a row end a video as
// corrupt; isolated bad packets are concealed, as the ffmpeg command does.
const maxDecodeErrors = 64

// receive decodes until one more frame is pending or the decoder is drained.
func (d *Decoder) receive(ctx context.Context) error {
	consecutive := 0
	for {
		err := d.cc.ReceiveFrame(d.recv)
		if err == nil {
			d.stats.FramesDecoded++
			if d.hw != nil && d.fallback == "" && d.recv.PixelFormat() != astiav.PixelFormatCuda {
				// get_format was not offered CUDA: the GPU cannot decode this
				// stream (a codec or profile NVDEC lacks, e.g. AV1 on Hopper).
				d.fallback = fmt.Sprintf("NVDEC cannot decode this %s %s stream; FFmpeg decoded it on the CPU", d.src.info.Codec, d.src.info.PixelFormat)
			}
			pts := frameTimestamp(d.recv)
			if d.src.untimed {
				pts = d.src.frameTimestamp(d.frameNo)
				d.frameNo++
			}
			if pts == math.MinInt64 {
				d.recv.Unref()
				continue // a frame with no time cannot answer a time query
			}
			d.pend, d.recv = d.recv, d.pend
			d.pendPTS, d.havePend = pts, true
			return nil
		}
		if errors.Is(err, astiav.ErrEof) {
			d.drained = true
			return nil
		}
		if !errors.Is(err, astiav.ErrEagain) {
			d.lastErr = err
			d.stats.DecodeErrors++
			if consecutive++; consecutive > maxDecodeErrors {
				return &VideoError{Path: d.src.path, Kind: KindCorrupt, Err: fmt.Errorf("decode: %w", err)}
			}
			continue
		}
		if d.demuxEOF {
			d.drained = true
			return nil
		}
		if err := ctx.Err(); err != nil {
			return d.src.ctxOr(ctx, err)
		}
		if err := d.src.fc.ReadFrame(d.pkt); err != nil {
			if ctx.Err() != nil {
				return d.src.ctxOr(ctx, ctx.Err())
			}
			if !errors.Is(err, astiav.ErrEof) {
				d.lastErr = fmt.Errorf("read packet: %w", err)
			}
			d.demuxEOF = true
			if err := d.cc.SendPacket(nil); err != nil && !errors.Is(err, astiav.ErrEof) {
				d.drained = true
				return nil
			}
			continue
		}
		if d.pkt.StreamIndex() != d.src.st.Index() {
			d.pkt.Unref()
			continue
		}
		if skip := d.skippable(d.pkt.Pts(), d.pkt.Duration()); skip != d.skipping {
			skipNonReference(d.cc, skip)
			d.skipping = skip
		}
		if d.skipping {
			d.stats.PacketsSkippable++
			if isH264NonReference(d.cc, d.pkt) {
				// Dropped here rather than skipped inside the decoder: a
				// packet skipped there still takes a frame thread's turn,
				// so the reference frames around it decode one at a time
				// (1080p GOP 600, 2 threads: about 4.0 s -> 2.7-3.0 s for 32 frames).
				d.stats.PacketsDropped++
				d.pkt.Unref()
				continue
			}
		}
		err = d.cc.SendPacket(d.pkt)
		d.pkt.Unref()
		d.stats.PacketsSent++
		if err != nil && !errors.Is(err, astiav.ErrEagain) {
			d.lastErr = err
			d.stats.DecodeErrors++
			if consecutive++; consecutive > maxDecodeErrors {
				return &VideoError{Path: d.src.path, Kind: KindCorrupt, Err: fmt.Errorf("decode: %w", err)}
			}
		} else {
			consecutive = 0
		}
	}
}

// skippable reports whether the frame in a packet shown at pts for dur
// can be left undecoded when nothing refers to it: no target falls within
// its display time. Only for constant frame rates, where the display time
// of every frame is known from its packet, and never near the end, whose
// last frame answers every later time.
func (d *Decoder) skippable(pts, dur int64) bool {
	if !d.src.cfr || d.hw != nil || pts == math.MinInt64 || dur <= 0 {
		return false
	}
	if d.src.toDuration(pts+2*dur) >= d.src.info.End() {
		return false
	}
	i := sort.Search(len(d.targets), func(i int) bool { return d.targets[i] >= pts })
	return i == len(d.targets) || d.targets[i] >= pts+dur
}

// convert writes frame f (shown at pts) into out as ow x oh RGB.
func (d *Decoder) convert(f *astiav.Frame, pts int64, ow, oh int, out *Frame) error {
	in := d.src.info
	need := 3 * ow * oh
	if cap(out.RGB) < need {
		out.RGB = make([]byte, need)
	}
	out.RGB = out.RGB[:need]
	sw, sh := ow, oh
	if in.Rotation == 90 || in.Rotation == 270 {
		sw, sh = oh, ow
	}
	target := out.RGB
	if in.Rotation != 0 {
		if cap(d.scratch) < need {
			d.scratch = make([]byte, need)
		}
		target = d.scratch[:need]
	}
	var err error
	if d.hw != nil {
		err = d.hw.scale(f, &d.scaler, target, sw, sh)
	} else {
		err = d.scaler.scale(f, target, sw, sh)
	}
	if err != nil {
		return fmt.Errorf("decode %s: %w", d.src.path, err)
	}
	if in.Rotation != 0 {
		rotateRGB(out.RGB, target, sw, sh, in.Rotation)
	}
	out.PTS = d.src.toDuration(pts)
	out.Width, out.Height = ow, oh
	out.Index = 0
	if in.FrameRate > 0 {
		out.Index = int(math.Round((out.PTS - in.Start).Seconds() * in.FrameRate))
	}
	return nil
}
