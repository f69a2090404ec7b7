package decode

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/asticode/go-astiav"
)

// Kind says why a video could not be decoded, so that a harness can record
// one reason per item and go on with the rest of the run.
type Kind string

// The kinds of per-video failure.
const (
	KindMissing          Kind = "missing"           // no such file, not readable, or not a regular file
	KindEmpty            Kind = "empty"             // zero bytes
	KindTruncated        Kind = "truncated"         // ends before what its container declares
	KindCorrupt          Kind = "corrupt"           // FFmpeg cannot parse or decode it
	KindNoVideoStream    Kind = "no-video-stream"   // e.g. audio only
	KindUnsupportedCodec Kind = "unsupported-codec" // no decoder in this FFmpeg build
	KindTimeout          Kind = "timeout"           // the per-video deadline passed
)

// ErrClipOutside is what a sampler's error matches when the clip it was
// given does not overlap the video (it starts at or after the video's end,
// or ends before its first frame): a fault of the item that asked for the
// clip, not of the video, whose other items sample it as usual.
var ErrClipOutside = errors.New("clip outside the video")

// A VideoError reports why one video failed. Err keeps the cause, with
// FFmpeg's own message where FFmpeg produced the error.
type VideoError struct {
	Path string
	Kind Kind
	Err  error
}

func (e *VideoError) Error() string {
	return fmt.Sprintf("decode %s: %s: %v", e.Path, e.Kind, e.Err)
}

func (e *VideoError) Unwrap() error { return e.Err }

// KindOf returns the Kind of the first *VideoError in err's chain, or "" if
// there is none (for instance when the run itself was cancelled).
func KindOf(err error) Kind {
	var ve *VideoError
	if errors.As(err, &ve) {
		return ve.Kind
	}
	return ""
}

func videoErr(path string, kind Kind, format string, args ...any) *VideoError {
	return &VideoError{Path: path, Kind: kind, Err: fmt.Errorf(format, args...)}
}

// statVideo checks the file before FFmpeg sees it, so that the two commonest
// failures get a precise kind instead of FFmpeg's generic messages.
func statVideo(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &VideoError{Path: path, Kind: KindMissing, Err: err}
	}
	if fi.IsDir() {
		return videoErr(path, KindMissing, "is a directory")
	}
	if !fi.Mode().IsRegular() {
		// A pipe or device could block FFmpeg's reads forever, beyond the
		// reach of any deadline (the interrupt is polled between reads).
		return videoErr(path, KindMissing, "not a regular file (%v)", fi.Mode().Type())
	}
	if fi.Size() == 0 {
		return videoErr(path, KindEmpty, "file has zero bytes")
	}
	f, err := os.Open(path)
	if err != nil {
		return &VideoError{Path: path, Kind: KindMissing, Err: err}
	}
	return f.Close()
}

// openErrorKind classifies a failure of avformat_open_input or
// avformat_find_stream_info: a file whose container declares more bytes
// than it holds is truncated, anything else FFmpeg cannot parse is corrupt.
func openErrorKind(path string, err error) Kind {
	if short, _ := declaresMoreThanHeld(path); short {
		return KindTruncated
	}
	if errors.Is(err, astiav.ErrDecoderNotFound) || errors.Is(err, astiav.ErrDemuxerNotFound) {
		return KindUnsupportedCodec
	}
	return KindCorrupt
}

// declaresMoreThanHeld reports whether the file's top-level structure claims
// bytes beyond its end: an ISO-BMFF (MP4, MOV) box, or a Matroska/WebM
// Segment element, whose size runs past the end of the file. It reads a few
// bytes per top-level box and never the payloads.
func declaresMoreThanHeld(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	size := fi.Size()
	var head [16]byte
	if _, err := io.ReadFull(f, head[:8]); err != nil {
		return false, nil
	}
	if string(head[4:8]) == "ftyp" {
		return isoBoxesOverrun(f, size)
	}
	if head[0] == 0x1A && head[1] == 0x45 && head[2] == 0xDF && head[3] == 0xA3 {
		return matroskaSegmentOverruns(f, size)
	}
	return false, nil
}

// isoBoxesOverrun walks ISO/IEC 14496-12 top-level boxes (32-bit size, or
// size 1 with a 64-bit size after the type, or 0 for "to the end of file").
func isoBoxesOverrun(f *os.File, size int64) (bool, error) {
	var off int64
	var b [16]byte
	for off < size {
		if _, err := f.ReadAt(b[:8], off); err != nil {
			return off+8 > size, nil
		}
		n := int64(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
		switch n {
		case 0:
			return false, nil
		case 1:
			if _, err := f.ReadAt(b[8:16], off+8); err != nil {
				return true, nil
			}
			n = 0
			for _, c := range b[8:16] {
				n = n<<8 | int64(c)
			}
		}
		if n < 8 {
			return false, nil // not a box structure we understand; leave it to FFmpeg
		}
		off += n
	}
	return off > size, nil
}

// matroskaSegmentOverruns reads the EBML header's size, skips it, and
// compares the Segment element's declared size (RFC 8794 variable-size
// integers; all ones means unknown size, as in live streams) with the file.
func matroskaSegmentOverruns(f *os.File, size int64) (bool, error) {
	readVint := func(off int64, keepMarker bool) (val int64, n int, unknown bool, err error) {
		var b [8]byte
		if _, err := f.ReadAt(b[:1], off); err != nil {
			return 0, 0, false, err
		}
		n = 1
		for mask := byte(0x80); n <= 8 && b[0]&mask == 0; mask >>= 1 {
			n++
		}
		if n > 8 {
			return 0, 0, false, fmt.Errorf("bad EBML integer")
		}
		if _, err := f.ReadAt(b[:n], off); err != nil {
			return 0, 0, false, err
		}
		first := b[0]
		if !keepMarker {
			first &= byte(0xFF >> n)
		}
		val = int64(first)
		allOnes := first == byte(0xFF>>n)
		for _, c := range b[1:n] {
			val = val<<8 | int64(c)
			allOnes = allOnes && c == 0xFF
		}
		return val, n, allOnes && !keepMarker, nil
	}
	off := int64(4)
	hsize, n, _, err := readVint(off, false)
	if err != nil {
		return false, nil
	}
	off += int64(n) + hsize
	id, n, _, err := readVint(off, true)
	if err != nil {
		return off > size, nil
	}
	if id != 0x18538067 { // Segment
		return false, nil
	}
	off += int64(n)
	ssize, n, unknown, err := readVint(off, false)
	if err != nil {
		return true, nil
	}
	if unknown {
		return false, nil
	}
	return off+int64(n)+ssize > size, nil
}
