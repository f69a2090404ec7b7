package decode

import (
	"context"
	"errors"
	"fmt"

	"github.com/asticode/go-astiav"
)

// AudioRate is the sample rate DecodeAudio resamples to: 16 kHz, what
// Whisper-style speech models read.
const AudioRate = 16000

// Audio is a video's audio track, resampled to AudioRate mono float32.
type Audio struct {
	// NoStream is true when the file has no audio stream: a result, not a
	// failure (many benchmark videos are silent); Samples is then empty.
	NoStream bool
	Samples  []float32
	// Codec and Rate describe the stream as stored (e.g. "aac", 44100).
	Codec string
	Rate  int
}

// Seconds is the track's length.
func (a *Audio) Seconds() float64 { return float64(len(a.Samples)) / AudioRate }

// resampleFilters is the graph between the decoder and the samples: FFmpeg's
// aresample (libswresample) to 16 kHz, then aformat to packed float mono, so
// that the down-mix and the rate conversion are FFmpeg's own.
const resampleFilters = "aresample=16000,aformat=sample_fmts=flt:channel_layouts=mono"

// DecodeAudio decodes the first audio stream of path to 16 kHz mono
// float32 through FFmpeg. A file with no audio stream gives
// Audio{NoStream: true} and no error; a file that cannot be read or
// decoded gives a *VideoError, as the frame decoders do. ctx interrupts
// FFmpeg's I/O.
func DecodeAudio(ctx context.Context, path string) (*Audio, error) {
	s := &source{path: path}
	if err := ctx.Err(); err != nil {
		return nil, s.ctxOr(ctx, err)
	}
	if err := statVideo(path); err != nil {
		return nil, err
	}
	s.fc = astiav.AllocFormatContext()
	if s.fc == nil {
		return nil, fmt.Errorf("decode %s: cannot allocate a format context", path)
	}
	var err error
	if s.interrupt, err = newIOInterrupt(s.fc); err != nil {
		s.fc.Free()
		s.fc = nil
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	defer s.close()
	defer s.watch(ctx)()
	if err := s.fc.OpenInput(path, nil, nil); err != nil {
		s.fc.Free()
		s.fc = nil
		return nil, s.ctxOr(ctx, &VideoError{Path: path, Kind: openErrorKind(path, err), Err: fmt.Errorf("open: %w", err)})
	}
	if err := s.fc.FindStreamInfo(nil); err != nil {
		return nil, s.ctxOr(ctx, &VideoError{Path: path, Kind: openErrorKind(path, err), Err: fmt.Errorf("find stream info: %w", err)})
	}
	var st *astiav.Stream
	for _, x := range s.fc.Streams() {
		if x.CodecParameters().MediaType() == astiav.MediaTypeAudio && st == nil {
			st = x
			continue
		}
		discardStream(x)
	}
	if st == nil {
		return &Audio{NoStream: true}, nil
	}
	a, err := decodeStream(ctx, s, st)
	if err != nil {
		return nil, s.ctxOr(ctx, err)
	}
	return a, nil
}

// decodeStream decodes st of s through the resampling graph.
func decodeStream(ctx context.Context, s *source, st *astiav.Stream) (*Audio, error) {
	par := st.CodecParameters()
	codec := astiav.FindDecoder(par.CodecID())
	if codec == nil {
		return nil, videoErr(s.path, KindUnsupportedCodec, "no decoder for audio codec %s", par.CodecID())
	}
	cc := astiav.AllocCodecContext(codec)
	if cc == nil {
		return nil, fmt.Errorf("decode %s: no codec context", s.path)
	}
	defer cc.Free()
	if err := par.ToCodecContext(cc); err != nil {
		return nil, videoErr(s.path, KindCorrupt, "audio parameters: %w", err)
	}
	cc.SetThreadCount(1)
	if err := cc.Open(codec, nil); err != nil {
		return nil, videoErr(s.path, KindCorrupt, "open audio decoder: %w", err)
	}
	a := &Audio{Codec: codec.Name(), Rate: cc.SampleRate()}
	if cc.SampleRate() <= 0 {
		return nil, videoErr(s.path, KindCorrupt, "audio stream has sample rate %d", cc.SampleRate())
	}
	var g *resampler
	pkt := astiav.AllocPacket()
	defer pkt.Free()
	frame := astiav.AllocFrame()
	defer frame.Free()
	defer func() {
		if g != nil {
			g.free()
		}
	}()
	// receive drains the decoder into the graph; the graph is built from the
	// first frame, whose format, rate and layout it must match.
	receive := func() error {
		for {
			err := cc.ReceiveFrame(frame)
			if errors.Is(err, astiav.ErrEagain) || errors.Is(err, astiav.ErrEof) {
				return nil
			}
			if err != nil {
				return videoErr(s.path, KindCorrupt, "decode audio: %w", err)
			}
			if g == nil {
				if g, err = newResampler(frame, st.TimeBase()); err != nil {
					frame.Unref()
					return fmt.Errorf("decode %s: %w", s.path, err)
				}
			}
			err = g.push(frame)
			frame.Unref()
			if err != nil {
				return fmt.Errorf("decode %s: %w", s.path, err)
			}
			if a.Samples, err = g.pull(a.Samples); err != nil {
				return fmt.Errorf("decode %s: %w", s.path, err)
			}
		}
	}
	for n := 0; ; n++ {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		err := s.fc.ReadFrame(pkt)
		if errors.Is(err, astiav.ErrEof) {
			break
		}
		if err != nil {
			return nil, videoErr(s.path, KindCorrupt, "read: %w", err)
		}
		if pkt.StreamIndex() != st.Index() {
			pkt.Unref()
			continue
		}
		err = cc.SendPacket(pkt)
		pkt.Unref()
		if err != nil && !errors.Is(err, astiav.ErrEagain) {
			return nil, videoErr(s.path, KindCorrupt, "decode audio: %w", err)
		}
		if err := receive(); err != nil {
			return nil, err
		}
	}
	if err := cc.SendPacket(nil); err != nil && !errors.Is(err, astiav.ErrEof) {
		return nil, videoErr(s.path, KindCorrupt, "flush audio decoder: %w", err)
	}
	if err := receive(); err != nil {
		return nil, err
	}
	if g != nil {
		if err := g.push(nil); err != nil {
			return nil, fmt.Errorf("decode %s: %w", s.path, err)
		}
		var err error
		if a.Samples, err = g.pull(a.Samples); err != nil {
			return nil, fmt.Errorf("decode %s: %w", s.path, err)
		}
	}
	return a, nil
}

// resampler is the filter graph abuffer -> aresample -> aformat ->
// abuffersink.
type resampler struct {
	graph     *astiav.FilterGraph
	src, sink *astiav.FilterContext
	out       *astiav.Frame
}

func newResampler(f *astiav.Frame, tb astiav.Rational) (r *resampler, err error) {
	r = &resampler{graph: astiav.AllocFilterGraph(), out: astiav.AllocFrame()}
	defer func() {
		if err != nil {
			r.free()
		}
	}()
	r.graph.SetThreadCount(1)
	layout := f.ChannelLayout().String()
	if !f.ChannelLayout().Valid() || layout == "" {
		layout = fmt.Sprintf("%dc", max(1, f.ChannelLayout().NbChannels()))
	}
	if r.src, err = r.graph.NewFilterContext(astiav.FindFilterByName("abuffer"), "in", astiav.FilterArgs{
		"time_base": fmt.Sprintf("%d/%d", tb.Num(), tb.Den()), "sample_rate": fmt.Sprint(f.SampleRate()),
		"sample_fmt": f.SampleFormat().Name(), "channel_layout": layout,
	}); err != nil {
		return nil, fmt.Errorf("audio source (%s, %d Hz, %s): %w", f.SampleFormat().Name(), f.SampleRate(), layout, err)
	}
	if r.sink, err = r.graph.NewFilterContext(astiav.FindFilterByName("abuffersink"), "out", nil); err != nil {
		return nil, fmt.Errorf("audio sink: %w", err)
	}
	outputs, inputs := astiav.AllocFilterInOut(), astiav.AllocFilterInOut()
	defer outputs.Free()
	defer inputs.Free()
	outputs.SetName("in")
	outputs.SetFilterContext(r.src)
	outputs.SetPadIdx(0)
	inputs.SetName("out")
	inputs.SetFilterContext(r.sink)
	inputs.SetPadIdx(0)
	if err = r.graph.Parse(resampleFilters, inputs, outputs); err != nil {
		return nil, fmt.Errorf("audio filters %q: %w", resampleFilters, err)
	}
	if err = r.graph.Configure(); err != nil {
		return nil, fmt.Errorf("audio filters: %w", err)
	}
	return r, nil
}

// push sends f (nil: the end) into the graph.
func (r *resampler) push(f *astiav.Frame) error {
	if err := r.src.BuffersrcAddFrame(f, astiav.NewBuffersrcFlags(astiav.BuffersrcFlagKeepRef)); err != nil {
		return fmt.Errorf("resample: %w", err)
	}
	return nil
}

// pull appends every sample the graph has ready.
func (r *resampler) pull(dst []float32) ([]float32, error) {
	for {
		err := r.sink.BuffersinkGetFrame(r.out, astiav.NewBuffersinkFlags())
		if errors.Is(err, astiav.ErrEagain) || errors.Is(err, astiav.ErrEof) {
			return dst, nil
		}
		if err != nil {
			return dst, fmt.Errorf("resample: %w", err)
		}
		dst, err = appendFloats(dst, r.out)
		r.out.Unref()
		if err != nil {
			return dst, err
		}
	}
}

func (r *resampler) free() {
	if r.out != nil {
		r.out.Free()
	}
	if r.graph != nil {
		r.graph.Free()
	}
}
