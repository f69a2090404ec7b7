package decode

// This file is the package's only encoder: it writes H.264 MP4 files from
// RGB frames through go-astiav (libx264, as Debian's FFmpeg 5.1 ships it),
// so that rendered test videos need no ffmpeg command. Like ffmpeg.go it
// reaches below go-astiav only to fill a frame's planes.

//#cgo pkg-config: libavutil
//#include <libavutil/frame.h>
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/asticode/go-astiav"
)

// EncodeOptions set up an H.264 encoder. Width and Height must be even
// (4:2:0 chroma); FPS is the constant frame rate; GOP is the distance
// between keyframes in frames (FPS when 0); CRF is libx264's constant rate
// factor (23 when 0; lower is better quality).
type EncodeOptions struct {
	Width, Height int
	FPS           int
	GOP           int
	CRF           int
	// Audio, when not empty, is a mono track (samples in [-1, 1] at
	// AudioRate Hz, AudioRate 16000 when 0) written beside the video as AAC
	// (audio_encode.go). Without it the file has no audio stream and its
	// bytes are what they were before the option existed.
	Audio     []float32
	AudioRate int
}

// An Encoder writes one MP4 file. Its output is a pure function of the
// options and the frames: libx264 runs on one thread with no B-frames, and
// the muxer and encoder write no version strings (bitexact), so the same
// frames give the same bytes on a machine with the same FFmpeg.
type Encoder struct {
	opt    EncodeOptions
	fc     *astiav.FormatContext
	io     *astiav.IOContext
	cc     *astiav.CodecContext
	st     *astiav.Stream
	frame  *astiav.Frame
	pkt    *astiav.Packet
	n      int64
	audio  *audioTrack
	path   string
	closed bool
}

// CreateH264 opens path for writing and prepares the encoder.
func CreateH264(path string, opt EncodeOptions) (e *Encoder, err error) {
	if opt.Width <= 0 || opt.Height <= 0 || opt.Width%2 != 0 || opt.Height%2 != 0 {
		return nil, fmt.Errorf("encode %s: size %dx%d: width and height must be even and positive", path, opt.Width, opt.Height)
	}
	if opt.FPS <= 0 {
		return nil, fmt.Errorf("encode %s: frame rate %d: must be positive", path, opt.FPS)
	}
	if opt.GOP <= 0 {
		opt.GOP = opt.FPS
	}
	if opt.CRF <= 0 {
		opt.CRF = 23
	}
	codec := astiav.FindEncoderByName("libx264")
	if codec == nil {
		return nil, errors.New("encode: FFmpeg has no libx264 encoder (Debian's libavcodec59 has it)")
	}
	e = &Encoder{opt: opt, path: path}
	defer func() {
		if err != nil {
			e.free()
		}
	}()
	if e.fc, err = astiav.AllocOutputFormatContext(nil, "mp4", path); err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	e.fc.SetFlags(e.fc.Flags().Add(astiav.FormatContextFlagBitexact))
	e.cc = astiav.AllocCodecContext(codec)
	if e.cc == nil {
		return nil, fmt.Errorf("encode %s: no codec context", path)
	}
	tb := astiav.NewRational(1, opt.FPS)
	e.cc.SetWidth(opt.Width)
	e.cc.SetHeight(opt.Height)
	e.cc.SetPixelFormat(astiav.PixelFormatYuv420P)
	e.cc.SetTimeBase(tb)
	e.cc.SetFramerate(astiav.NewRational(opt.FPS, 1))
	e.cc.SetGopSize(opt.GOP)
	e.cc.SetThreadCount(1)
	e.cc.SetFlags(e.cc.Flags().Add(astiav.CodecContextFlagBitexact).Add(astiav.CodecContextFlagGlobalHeader))
	d := astiav.NewDictionary()
	defer d.Free()
	for _, kv := range [][2]string{{"preset", "veryfast"}, {"crf", fmt.Sprint(opt.CRF)}, {"bf", "0"},
		{"x264-params", fmt.Sprintf("keyint=%d:min-keyint=%d:scenecut=0", opt.GOP, opt.GOP)}} {
		if err := d.Set(kv[0], kv[1], 0); err != nil {
			return nil, fmt.Errorf("encode %s: option %s: %w", path, kv[0], err)
		}
	}
	if err := e.cc.Open(codec, d); err != nil {
		return nil, fmt.Errorf("encode %s: open libx264: %w", path, err)
	}
	e.st = e.fc.NewStream(nil)
	if e.st == nil {
		return nil, fmt.Errorf("encode %s: no stream", path)
	}
	if err := e.cc.ToCodecParameters(e.st.CodecParameters()); err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	e.st.SetTimeBase(tb)
	if len(opt.Audio) > 0 {
		if e.audio, err = newAudioTrack(e); err != nil {
			return nil, fmt.Errorf("encode %s: %w", path, err)
		}
	}
	if e.io, err = astiav.OpenIOContext(path, astiav.NewIOContextFlags(astiav.IOContextFlagWrite)); err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	e.fc.SetPb(e.io)
	if err := e.fc.WriteHeader(nil); err != nil {
		return nil, fmt.Errorf("encode %s: write header: %w", path, err)
	}
	e.frame = astiav.AllocFrame()
	e.frame.SetWidth(opt.Width)
	e.frame.SetHeight(opt.Height)
	e.frame.SetPixelFormat(astiav.PixelFormatYuv420P)
	if err := e.frame.AllocBuffer(0); err != nil {
		return nil, fmt.Errorf("encode %s: frame buffer: %w", path, err)
	}
	e.pkt = astiav.AllocPacket()
	return e, nil
}

// WriteRGB encodes one frame of packed RGB24 (Width*Height*3 bytes, rows top
// to bottom), converted to limited-range BT.601 YUV 4:2:0 (what decoders
// assume for untagged SD video).
func (e *Encoder) WriteRGB(rgb []byte) error {
	w, h := e.opt.Width, e.opt.Height
	if len(rgb) != w*h*3 {
		return fmt.Errorf("encode %s: frame of %d bytes, want %d (%dx%d RGB)", e.path, len(rgb), w*h*3, w, h)
	}
	cf := cFrame(e.frame)
	if C.av_frame_make_writable(cf) < 0 {
		return fmt.Errorf("encode %s: frame not writable", e.path)
	}
	plane := func(i, rows int) ([]byte, int) {
		ls := int(cf.linesize[i])
		return unsafe.Slice((*byte)(unsafe.Pointer(cf.data[i])), ls*rows), ls
	}
	yp, ys := plane(0, h)
	up, us := plane(1, h/2)
	vp, vs := plane(2, h/2)
	rgbToYUV420(rgb, w, h, yp, ys, up, us, vp, vs)
	e.frame.SetPts(e.n)
	e.n++
	if err := e.cc.SendFrame(e.frame); err != nil {
		return fmt.Errorf("encode %s: frame %d: %w", e.path, e.n-1, err)
	}
	if err := e.drain(); err != nil {
		return err
	}
	return e.writeAudio(false)
}

// writeAudio encodes the audio up to the end of the pictures sent so far
// (all of it with flush), so the two streams advance together.
func (e *Encoder) writeAudio(flush bool) error {
	if e.audio == nil {
		return nil
	}
	end := int(e.n * int64(e.audio.cc.SampleRate()) / int64(e.opt.FPS))
	if flush {
		end = len(e.audio.samples)
	}
	if err := e.audio.writeUntil(e, end, flush); err != nil {
		return fmt.Errorf("encode %s: %w", e.path, err)
	}
	return nil
}

// drain writes every packet the encoder has ready.
func (e *Encoder) drain() error {
	for {
		err := e.cc.ReceivePacket(e.pkt)
		if errors.Is(err, astiav.ErrEagain) || errors.Is(err, astiav.ErrEof) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("encode %s: %w", e.path, err)
		}
		if e.pkt.Duration() == 0 {
			e.pkt.SetDuration(1) // one frame at the constant rate, so the last frame counts in the duration
		}
		e.pkt.SetStreamIndex(e.st.Index())
		e.pkt.RescaleTs(e.cc.TimeBase(), e.st.TimeBase())
		err = e.fc.WriteInterleavedFrame(e.pkt)
		e.pkt.Unref()
		if err != nil {
			return fmt.Errorf("encode %s: write packet: %w", e.path, err)
		}
	}
}

// Close flushes the encoder, writes the file's index and closes it. It is
// safe to call twice.
func (e *Encoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	defer e.free()
	if err := e.cc.SendFrame(nil); err != nil {
		return fmt.Errorf("encode %s: flush: %w", e.path, err)
	}
	if err := e.drain(); err != nil {
		return err
	}
	if err := e.writeAudio(true); err != nil {
		return err
	}
	if err := e.fc.WriteTrailer(); err != nil {
		return fmt.Errorf("encode %s: write trailer: %w", e.path, err)
	}
	err := e.io.Close()
	e.io = nil
	if err != nil {
		return fmt.Errorf("encode %s: close: %w", e.path, err)
	}
	return nil
}

func (e *Encoder) free() {
	if e.audio != nil {
		e.audio.free()
		e.audio = nil
	}
	if e.pkt != nil {
		e.pkt.Free()
		e.pkt = nil
	}
	if e.frame != nil {
		e.frame.Free()
		e.frame = nil
	}
	if e.cc != nil {
		e.cc.Free()
		e.cc = nil
	}
	if e.io != nil {
		e.io.Close()
		e.io = nil
	}
	if e.fc != nil {
		e.fc.Free()
		e.fc = nil
	}
}

// rgbToYUV420 converts packed RGB to limited-range BT.601 planes (ITU-R
// BT.601 coefficients in 8-bit fixed point, as libswscale's defaults),
// averaging each 2x2 block for the chroma planes.
func rgbToYUV420(rgb []byte, w, h int, y []byte, ys int, u []byte, us int, v []byte, vs int) {
	for r := 0; r < h; r++ {
		for c := 0; c < w; c++ {
			p := rgb[(r*w+c)*3:]
			R, G, B := int(p[0]), int(p[1]), int(p[2])
			y[r*ys+c] = byte((66*R+129*G+25*B+128)>>8 + 16)
		}
	}
	for r := 0; r < h/2; r++ {
		for c := 0; c < w/2; c++ {
			var R, G, B int
			for _, d := range [4][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
				p := rgb[((2*r+d[0])*w+2*c+d[1])*3:]
				R += int(p[0])
				G += int(p[1])
				B += int(p[2])
			}
			R, G, B = (R+2)/4, (G+2)/4, (B+2)/4
			u[r*us+c] = byte((-38*R-74*G+112*B+128)>>8 + 128)
			v[r*vs+c] = byte((112*R-94*G-18*B+128)>>8 + 128)
		}
	}
}
