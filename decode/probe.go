package decode

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/asticode/go-astiav"
)

// Info is what Probe learns about a video's first video stream. Times are
// measured from the start of the file, as the ffmpeg command's -ss counts
// them (the container's start time is time zero).
type Info struct {
	Path        string
	Container   string  // FFmpeg demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
	Codec       string  // FFmpeg codec name, e.g. "h264"
	Width       int     // coded width in pixels
	Height      int     // coded height in pixels
	PixelFormat string  // e.g. "yuv420p"
	Rotation    int     // clockwise degrees to turn the picture for display: 0, 90, 180 or 270
	AspectNum   int     // sample (pixel) aspect ratio; 1:1 when unknown
	AspectDen   int     //
	FrameRate   float64 // average frames per second (0 if unknown)
	// Frames is the number of frames where the container records it or a
	// packet scan counted them, else 0.
	Frames int
	// Start is the presentation time of the first video frame.
	Start time.Duration
	// Duration is how long the video stream lasts, from Start.
	Duration time.Duration
	// DurationSource says where Duration came from: "stream", "container"
	// or "scan".
	DurationSource string
	// Keyframes are the presentation times of the keyframes, ascending.
	Keyframes []time.Duration
	// KeyframeSource is "index" when Keyframes come from the container's
	// seek index, "scan" when from reading every packet (decoding nothing).
	KeyframeSource string
	BitRate        int64 // bits per second of the whole file, 0 if unknown
	// Truncated is true when the file ends before what its container
	// declares (a download or copy cut short): Frames and Duration are
	// then what the container promises, and Readable says how much of it
	// the file holds.
	Truncated bool
	// Readable is, for a truncated MP4, the time from Start to the end of
	// the last frame whose bytes are all in the file (ReadableFrames
	// frames); frames asked for past it fail with KindTruncated. Zero
	// when the file is complete, or when the container does not say.
	Readable       time.Duration
	ReadableFrames int
}

// DisplaySize is the width and height a viewer sees: the coded size
// stretched by the pixel aspect ratio and turned by Rotation.
func (in Info) DisplaySize() (w, h int) {
	w, h = in.Width, in.Height
	if in.AspectNum > 0 && in.AspectDen > 0 && in.AspectNum != in.AspectDen {
		w = int(math.Round(float64(w) * float64(in.AspectNum) / float64(in.AspectDen)))
	}
	if in.Rotation == 90 || in.Rotation == 270 {
		w, h = h, w
	}
	return w, h
}

// End is the time just after the last frame.
func (in Info) End() time.Duration { return in.Start + in.Duration }

// Probe opens path and reports what it holds without decoding any frame.
// Keyframe times come from the container's index where it has one, and
// otherwise from a scan of the packets. Failures are *VideoError.
func Probe(ctx context.Context, path string) (Info, error) {
	src, err := openSource(ctx, path)
	if err != nil {
		return Info{}, err
	}
	defer src.close()
	return src.info, nil
}

// source is an opened container positioned on its video stream, with the
// facts the decoder plans from.
type source struct {
	path string
	fc   *astiav.FormatContext
	st   *astiav.Stream
	tb   astiav.Rational
	// origin is the container's start time in the stream's time base: the
	// zero of every Duration this package returns.
	origin int64
	// keys are the keyframe presentation timestamps (stream time base) the
	// decoder plans and seeks with.
	keys []int64
	// cfr is true when every frame lasts the same time, so a frame's
	// duration says when the next one starts; see frameRateIsConstant.
	cfr bool
	// seekable is true for containers whose timestamp seeks land where
	// asked: MP4/MOV (a sample table) and Matroska/WebM. MPEG-TS seeks by
	// bisecting byte offsets on timestamps, which B-frames and PCR jumps
	// mislead, and raw elementary streams have no timestamps to seek by, so
	// those are decoded from the start (each GOP still at most once per
	// Frames call).
	seekable bool
	// untimed is true for a stream whose packets carry no timestamps (raw
	// H.264, HEVC or MPEG video): its frames are numbered in display order
	// and frame i is shown at i/rate, as the ffmpeg command assumes.
	untimed bool
	rate    astiav.Rational
	// atStart is true while nothing has been read since opening.
	atStart bool
	// logID names the video in FFmpeg's log lines (log.go).
	logID     uintptr
	interrupt ioInterrupt
	info      Info
}

func openSource(ctx context.Context, path string) (*source, error) {
	s := &source{path: path}
	if err := ctx.Err(); err != nil {
		return nil, s.ctxOr(ctx, err)
	}
	if err := statVideo(path); err != nil {
		return nil, err
	}
	if err := s.open(ctx); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *source) open(ctx context.Context) error {
	s.fc = astiav.AllocFormatContext()
	if s.fc == nil {
		return fmt.Errorf("decode %s: cannot allocate a format context", s.path)
	}
	s.logID = registerLogVideo(s.path)
	setFormatLogID(s.fc, s.logID)
	var err error
	if s.interrupt, err = newIOInterrupt(s.fc); err != nil {
		s.fc.Free()
		s.fc = nil
		return fmt.Errorf("decode %s: %w", s.path, err)
	}
	defer s.watch(ctx)()
	if err := s.fc.OpenInput(s.path, nil, nil); err != nil {
		s.fc.Free()
		s.fc = nil
		return s.ctxOr(ctx, &VideoError{Path: s.path, Kind: openErrorKind(s.path, err), Err: fmt.Errorf("open: %w", err)})
	}
	if err := s.fc.FindStreamInfo(nil); err != nil {
		return s.ctxOr(ctx, &VideoError{Path: s.path, Kind: openErrorKind(s.path, err), Err: fmt.Errorf("find stream info: %w", err)})
	}
	for _, st := range s.fc.Streams() {
		if st.CodecParameters().MediaType() == astiav.MediaTypeVideo && s.st == nil && !isAttachedPicture(st) {
			s.st = st
			continue
		}
		discardStream(st)
	}
	if s.st == nil {
		return videoErr(s.path, KindNoVideoStream, "none of its %d streams is video", s.fc.NbStreams())
	}
	s.tb = s.st.TimeBase()
	if s.tb.Num() <= 0 || s.tb.Den() <= 0 {
		return videoErr(s.path, KindCorrupt, "video stream has time base %d/%d", s.tb.Num(), s.tb.Den())
	}
	s.atStart = true
	return s.describe(ctx)
}

// watch makes FFmpeg's blocking I/O on s fail when ctx ends, until the
// returned function is called, which also clears the flag so that later
// calls with a live context work. The mutex orders a cancellation that
// fires late after the clearing, so it cannot set the flag again.
func (s *source) watch(ctx context.Context) func() {
	var mu sync.Mutex
	active := true
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		if active {
			s.interrupt.set(true)
		}
		mu.Unlock()
	})
	return func() {
		stop()
		mu.Lock()
		active = false
		s.interrupt.set(false)
		mu.Unlock()
	}
}

// ctxOr returns the context's error in place of err when ctx ended, since
// an interrupted FFmpeg call reports the interruption as an I/O error.
func (s *source) ctxOr(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &VideoError{Path: s.path, Kind: KindTimeout, Err: ctx.Err()}
	}
	return fmt.Errorf("decode %s: %w", s.path, ctx.Err())
}

func (s *source) close() {
	if s.fc != nil {
		s.fc.CloseInput()
		s.fc.Free()
		s.fc = nil
	}
	if s.interrupt.p != nil {
		s.interrupt.free()
		s.interrupt.p = nil
	}
	if s.logID != 0 {
		unregisterLogVideo(s.logID)
		s.logID = 0
	}
}

// toDuration converts a timestamp in the stream's time base to time since
// the file's start, rounded to the nanosecond.
func (s *source) toDuration(ts int64) time.Duration {
	num, den := int64(s.tb.Num())*1e9, int64(s.tb.Den())
	return time.Duration(mulDiv(ts-s.origin, num, den, true))
}

// frameTimestamp is when frame i of an untimed stream is shown, in the
// stream's time base.
func (s *source) frameTimestamp(i int) int64 {
	return mulDiv(int64(i), int64(s.rate.Den())*int64(s.tb.Den()), int64(s.rate.Num())*int64(s.tb.Num()), false)
}

// toTimestamp converts a time since the file's start to the largest stream
// timestamp at or before it, so that "the last frame at or before t" is a
// comparison of integers.
func (s *source) toTimestamp(t time.Duration) int64 {
	num, den := int64(s.tb.Den()), int64(s.tb.Num())*1e9
	return mulDiv(int64(t), num, den, false) + s.origin
}

func (s *source) rescale(ts int64, from astiav.Rational) int64 {
	return mulDiv(ts, int64(from.Num())*int64(s.tb.Den()), int64(from.Den())*int64(s.tb.Num()), false)
}

// mulDiv returns a*b/c for b, c > 0 without overflow in the product,
// rounded to nearest (halves away from zero) or floored. Timestamps times
// nanoseconds per tick overflow int64 within hours, so the product is
// taken in 128 bits; the result must fit in int64.
func mulDiv(a, b, c int64, round bool) int64 {
	neg := a < 0
	ua := uint64(a)
	if neg {
		ua = uint64(-a)
	}
	hi, lo := bits.Mul64(ua, uint64(b))
	if hi >= uint64(c) {
		// The quotient would not fit; big.Int gives the same answer slowly.
		r := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(a), big.NewInt(b)), big.NewInt(c))
		f, _ := r.Float64()
		return int64(f)
	}
	q, rem := bits.Div64(hi, lo, uint64(c))
	switch {
	case round && rem*2 >= uint64(c):
		q++
	case !round && neg && rem != 0:
		q++ // floor of a negative quotient is one further from zero
	}
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// describe fills s.info and the keyframe plan.
func (s *source) describe(ctx context.Context) error {
	const noPTS = math.MinInt64 // AV_NOPTS_VALUE
	st, cp := s.st, s.st.CodecParameters()
	in := &s.info
	in.Path = s.path
	if f := s.fc.InputFormat(); f != nil {
		in.Container = f.Name()
	}
	if c := astiav.FindDecoder(cp.CodecID()); c != nil {
		in.Codec = c.Name()
	} else {
		in.Codec = cp.CodecID().Name()
	}
	in.Width, in.Height = cp.Width(), cp.Height()
	in.PixelFormat = cp.PixelFormat().Name()
	in.BitRate = s.fc.BitRate()
	in.AspectNum, in.AspectDen = 1, 1
	if sar := cp.SampleAspectRatio(); sar.Num() > 0 && sar.Den() > 0 {
		in.AspectNum, in.AspectDen = sar.Num(), sar.Den()
	}
	if b := st.SideData(astiav.PacketSideDataTypeDisplaymatrix); len(b) >= 36 {
		if m, err := astiav.NewDisplayMatrixFromBytes(b); err == nil {
			r := int(math.Round(m.Rotation()/90)) * 90
			in.Rotation = ((r % 360) + 360) % 360
		}
	}
	if r := st.AvgFrameRate(); r.Num() > 0 && r.Den() > 0 {
		in.FrameRate = r.Float64()
	} else if r := st.RFrameRate(); r.Num() > 0 && r.Den() > 0 {
		in.FrameRate = r.Float64()
	}
	if in.Width <= 0 || in.Height <= 0 {
		return videoErr(s.path, KindCorrupt, "video stream has size %dx%d", in.Width, in.Height)
	}

	avTB := astiav.NewRational(1, 1000000) // AV_TIME_BASE_Q
	if fs := s.fc.StartTime(); fs != noPTS {
		s.origin = s.rescale(fs, avTB)
	} else if ss := st.StartTime(); ss != noPTS {
		s.origin = ss
	}
	first := s.origin
	if ss := st.StartTime(); ss != noPTS {
		first = ss
	}
	in.Start = s.toDuration(first)
	if n := st.NbFrames(); n > 0 {
		in.Frames = int(n)
	}
	switch {
	case st.Duration() > 0 && st.Duration() != noPTS:
		in.Duration, in.DurationSource = s.toDuration(s.origin+st.Duration()), "stream"
	case s.fc.Duration() > 0 && s.fc.Duration() != noPTS:
		in.Duration, in.DurationSource = time.Duration(s.fc.Duration())*time.Microsecond-in.Start, "container"
	}

	s.seekable = strings.HasPrefix(in.Container, "mov,") || strings.HasPrefix(in.Container, "matroska")
	if s.keysFromIndex() {
		in.KeyframeSource = "index"
		// MP4 keeps a duration per sample; a file whose average and base
		// frame rates agree and whose frame count fits its duration at that
		// rate has equal durations (variable-rate phone videos fail this).
		avg, r := st.AvgFrameRate(), st.RFrameRate()
		est := in.Duration.Seconds() * in.FrameRate
		s.cfr = avg.Num() > 0 && int64(avg.Num())*int64(r.Den()) == int64(r.Num())*int64(avg.Den()) &&
			in.Frames > 0 && math.Abs(float64(in.Frames)-est) <= 1
	}
	if in.KeyframeSource == "" || in.Duration <= 0 {
		if err := s.scan(ctx, in.KeyframeSource == ""); err != nil {
			return err
		}
	}
	if short, _ := declaresMoreThanHeld(s.path); short {
		in.Truncated = true
		if in.KeyframeSource == "index" {
			s.readableFromIndex()
		}
	}
	in.Keyframes = make([]time.Duration, len(s.keys))
	for i, k := range s.keys {
		in.Keyframes[i] = s.toDuration(k)
	}
	return nil
}

// keysFromIndex fills the keyframe plan from the demuxer's index where
// that index lists every keyframe: MP4/MOV, whose sample table has a sync
// flag per sample. (Matroska's cues are seek points per cluster, often
// fewer than the keyframes, so Matroska and WebM are scanned.) MP4's index
// holds decode timestamps; their offset to presentation times is taken
// from the first packet.
func (s *source) keysFromIndex() bool {
	if !strings.HasPrefix(s.info.Container, "mov,") {
		return false
	}
	idx := streamIndex(s.st)
	var keys []int64
	for _, e := range idx {
		if e.key {
			keys = append(keys, e.ts)
		}
	}
	if len(keys) == 0 {
		return false
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	shift := int64(0)
	{
		pkt := astiav.AllocPacket()
		defer pkt.Free()
		for {
			if err := s.fc.ReadFrame(pkt); err != nil {
				break
			}
			if pkt.StreamIndex() != s.st.Index() {
				pkt.Unref()
				continue
			}
			if pkt.Pts() != math.MinInt64 && pkt.Dts() != math.MinInt64 && pkt.Dts() == keys[0] {
				shift = pkt.Pts() - pkt.Dts()
			}
			pkt.Unref()
			break
		}
		s.atStart = false
	}
	s.keys = make([]int64, len(keys))
	for i, k := range keys {
		s.keys[i] = k + shift
	}
	return true
}

// readableFromIndex fills Readable and ReadableFrames of a truncated MP4
// from its sample table: the samples whose bytes lie wholly within the
// file, in decode order up to the first that does not (later frames need
// the missing ones).
func (s *source) readableFromIndex() {
	st, err := statSize(s.path)
	if err != nil {
		return
	}
	idx := streamIndex(s.st)
	n := 0
	for n < len(idx) && idx[n].pos >= 0 && idx[n].pos+int64(idx[n].n) <= st {
		n++
	}
	in := &s.info
	in.ReadableFrames = n
	if n == 0 {
		return
	}
	if n == len(idx) {
		in.Readable = in.Duration
		return
	}
	// Presentation times of B-frames run ahead of decode order: the frames
	// shown before the first missing sample's decode time are held.
	end := idx[n].ts
	if len(s.keys) > 0 {
		end += s.keys[0] - firstKeyDTS(idx)
	}
	in.Readable = max(s.toDuration(end)-in.Start, 0)
}

// firstKeyDTS is the decode timestamp of the first keyframe of an index.
func firstKeyDTS(idx []indexEntry) int64 {
	for _, e := range idx {
		if e.key {
			return e.ts
		}
	}
	return 0
}

// scan reads every packet of the video stream (no decoding) to find the
// keyframes, the frame count and the duration, then rewinds.
func (s *source) scan(ctx context.Context, wantKeys bool) error {
	pkt := astiav.AllocPacket()
	defer pkt.Free()
	defer s.watch(ctx)()
	var keys, all []int64
	n := 0
	lastEnd := int64(math.MinInt64)
	firstPTS := int64(math.MaxInt64)
	for {
		if n%256 == 0 && ctx.Err() != nil {
			return s.ctxOr(ctx, ctx.Err())
		}
		if err := s.fc.ReadFrame(pkt); err != nil {
			if !errors.Is(err, astiav.ErrEof) && n == 0 {
				return s.ctxOr(ctx, &VideoError{Path: s.path, Kind: KindCorrupt, Err: fmt.Errorf("read packets: %w", err)})
			}
			break
		}
		if pkt.StreamIndex() != s.st.Index() {
			pkt.Unref()
			continue
		}
		ts := pkt.Pts()
		if ts == math.MinInt64 {
			ts = pkt.Dts()
		}
		if ts != math.MinInt64 {
			if pkt.Flags().Has(astiav.PacketFlagKey) {
				keys = append(keys, ts)
			}
			firstPTS = min(firstPTS, ts)
			all = append(all, ts)
			lastEnd = max(lastEnd, ts+pkt.Duration())
		}
		n++
		pkt.Unref()
	}
	s.atStart = false
	in := &s.info
	if n == 0 {
		return videoErr(s.path, KindCorrupt, "no video packets")
	}
	in.Frames = n
	if len(all) == 0 {
		// No packet has a time: a raw elementary stream. Frame i is shown
		// at i/rate.
		r := s.st.RFrameRate()
		if r.Num() <= 0 || r.Den() <= 0 {
			r = s.st.AvgFrameRate()
		}
		if r.Num() <= 0 || r.Den() <= 0 {
			return videoErr(s.path, KindCorrupt, "its packets carry no timestamps and it declares no frame rate")
		}
		s.untimed, s.rate, s.cfr, s.seekable = true, r, true, false
		s.origin, in.Start = 0, 0
		in.FrameRate = r.Float64()
		in.Duration, in.DurationSource = s.toDuration(s.frameTimestamp(n)), "scan"
		if wantKeys {
			s.keys, in.KeyframeSource = []int64{0}, "scan"
		}
		return nil
	}
	// Constant frame rate, measured: every gap between consecutive frame
	// times the same, to a tick (Matroska's metadata claims a rate even for
	// variable-rate files, so it is not trusted).
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	s.cfr = len(all) > 1
	for i := 2; i < len(all) && s.cfr; i++ {
		if d := (all[i] - all[i-1]) - (all[1] - all[0]); d > 1 || d < -1 {
			s.cfr = false
		}
	}
	if in.Duration <= 0 && lastEnd > firstPTS {
		in.Duration, in.DurationSource = s.toDuration(lastEnd)-s.toDuration(firstPTS), "scan"
		in.Start = s.toDuration(firstPTS)
	}
	if wantKeys {
		if len(keys) == 0 {
			keys = []int64{firstPTS}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		s.keys = keys
		in.KeyframeSource = "scan"
	}
	return nil
}

// statSize returns the size of the file at path.
func statSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
