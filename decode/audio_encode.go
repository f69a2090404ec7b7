package decode

import (
	"errors"
	"fmt"

	"github.com/asticode/go-astiav"
)

// audioTrack is the AAC stream an Encoder writes beside its video when
// EncodeOptions.Audio is set: FFmpeg's own AAC encoder, mono at
// EncodeOptions.AudioRate, one thread and bitexact like the video, fed in
// step with the pictures so the muxer interleaves the two.
type audioTrack struct {
	samples []float32
	next    int // the first sample not yet sent
	cc      *astiav.CodecContext
	st      *astiav.Stream
	frame   *astiav.Frame
	pkt     *astiav.Packet
}

// audioBitRate is the AAC bit rate: plenty for the tones of a synthetic
// world at 16 kHz mono.
const audioBitRate = 48000

// newAudioTrack adds the audio stream to e's output; it must run before the
// header is written.
func newAudioTrack(e *Encoder) (*audioTrack, error) {
	rate := e.opt.AudioRate
	if rate <= 0 {
		rate = AudioRate
	}
	codec := astiav.FindEncoder(astiav.CodecIDAac)
	if codec == nil {
		return nil, errors.New("FFmpeg has no AAC encoder")
	}
	t := &audioTrack{samples: e.opt.Audio, cc: astiav.AllocCodecContext(codec)}
	if t.cc == nil {
		return nil, errors.New("no audio codec context")
	}
	t.cc.SetSampleRate(rate)
	t.cc.SetSampleFormat(astiav.SampleFormatFltp)
	t.cc.SetChannelLayout(astiav.ChannelLayoutMono)
	t.cc.SetBitRate(audioBitRate)
	t.cc.SetTimeBase(astiav.NewRational(1, rate))
	t.cc.SetThreadCount(1)
	t.cc.SetFlags(t.cc.Flags().Add(astiav.CodecContextFlagBitexact).Add(astiav.CodecContextFlagGlobalHeader))
	if err := t.cc.Open(codec, nil); err != nil {
		t.free()
		return nil, fmt.Errorf("open AAC encoder: %w", err)
	}
	if t.st = e.fc.NewStream(nil); t.st == nil {
		t.free()
		return nil, errors.New("no audio stream")
	}
	if err := t.cc.ToCodecParameters(t.st.CodecParameters()); err != nil {
		t.free()
		return nil, err
	}
	t.st.SetTimeBase(astiav.NewRational(1, rate))
	t.frame = astiav.AllocFrame()
	t.frame.SetNbSamples(t.cc.FrameSize())
	t.frame.SetSampleFormat(astiav.SampleFormatFltp)
	t.frame.SetChannelLayout(astiav.ChannelLayoutMono)
	t.frame.SetSampleRate(rate)
	if err := t.frame.AllocBuffer(0); err != nil {
		t.free()
		return nil, fmt.Errorf("audio frame buffer: %w", err)
	}
	t.pkt = astiav.AllocPacket()
	return t, nil
}

// writeUntil encodes the samples before sample index end (whole AAC frames;
// a last partial frame only when flush is set) and writes their packets.
func (t *audioTrack) writeUntil(e *Encoder, end int, flush bool) error {
	fs := t.cc.FrameSize()
	end = min(end, len(t.samples))
	for t.next+fs <= end || (flush && t.next < end) {
		hi := min(t.next+fs, len(t.samples))
		if err := setPlanarMono(t.frame, t.samples[t.next:hi]); err != nil {
			return err
		}
		t.frame.SetPts(int64(t.next))
		t.next += fs
		if err := t.cc.SendFrame(t.frame); err != nil {
			return fmt.Errorf("audio: %w", err)
		}
		if err := t.drain(e); err != nil {
			return err
		}
	}
	if flush {
		if err := t.cc.SendFrame(nil); err != nil {
			return fmt.Errorf("audio flush: %w", err)
		}
		return t.drain(e)
	}
	return nil
}

func (t *audioTrack) drain(e *Encoder) error {
	for {
		err := t.cc.ReceivePacket(t.pkt)
		if errors.Is(err, astiav.ErrEagain) || errors.Is(err, astiav.ErrEof) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audio: %w", err)
		}
		t.pkt.SetStreamIndex(t.st.Index())
		t.pkt.RescaleTs(t.cc.TimeBase(), t.st.TimeBase())
		err = e.fc.WriteInterleavedFrame(t.pkt)
		t.pkt.Unref()
		if err != nil {
			return fmt.Errorf("audio: write packet: %w", err)
		}
	}
}

func (t *audioTrack) free() {
	if t.pkt != nil {
		t.pkt.Free()
		t.pkt = nil
	}
	if t.frame != nil {
		t.frame.Free()
		t.frame = nil
	}
	if t.cc != nil {
		t.cc.Free()
		t.cc = nil
	}
}
