package openai

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
)

// FrameLongSide is the longest side, in pixels, of a frame sent to a served
// vision-language reader: 448, as the Video-Index authors send theirs
// (video_index/pool/screen.py). Larger frames are shrunk to it; smaller ones
// are sent as they are.
const FrameLongSide = 448

// JPEGQuality is the quality frames are encoded at: 85, the authors' choice.
const JPEGQuality = 85

// EncodeFrame encodes a decoded frame (3 bytes a pixel, rows top to bottom,
// stride bytes from one row to the next, 0 meaning 3*width) for a served
// reader: shrunk by area averaging so that its longest side is at most
// FrameLongSide, then JPEG at JPEGQuality with Go's image/jpeg. Both steps
// are integer arithmetic and the encoder is fixed, so the same frame gives
// the same bytes in every request, on every run and machine, which is what
// lets a server's prefix cache reuse a video's frames across its questions.
func EncodeFrame(pix []byte, width, height, stride int) (*Image, error) {
	if stride == 0 {
		stride = 3 * width
	}
	if width <= 0 || height <= 0 || stride < 3*width || len(pix) < stride*(height-1)+3*width {
		return nil, fmt.Errorf("encode frame: %d bytes for %dx%d RGB with stride %d", len(pix), width, height, stride)
	}
	ow, oh := fitLongSide(width, height, FrameLongSide)
	img := newRGBA(ow, oh)
	if ow == width && oh == height {
		for y := 0; y < height; y++ {
			row := pix[y*stride:]
			out := img.Pix[y*img.Stride:]
			for x := 0; x < width; x++ {
				copy(out[4*x:4*x+3], row[3*x:3*x+3])
				out[4*x+3] = 255
			}
		}
	} else {
		areaResize(img, pix, width, height, stride)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return nil, fmt.Errorf("encode frame: %w", err)
	}
	return newImage("image/jpeg", buf.Bytes()), nil
}

// fitLongSide is the size of a w x h frame shrunk (never grown) so that its
// longest side is at most long, the other side rounded to the nearest pixel.
func fitLongSide(w, h, long int) (int, int) {
	if w <= long && h <= long {
		return w, h
	}
	if w >= h {
		return long, max(1, (h*long+w/2)/w)
	}
	return max(1, (w*long+h/2)/h), long
}

// areaResize shrinks the RGB frame src into dst by averaging, for each
// output pixel, the source pixels its box covers, each weighted by the area
// of the overlap. Coordinates are scaled by the output size so that every
// overlap is an integer, and the sums are exact in 64 bits (at most
// 255 x 2^16 x 2^16 for a 65536-pixel-wide source).
func areaResize(dst *image.RGBA, src []byte, sw, sh, stride int) {
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	xs := spans(sw, dw)
	ys := spans(sh, dh)
	row := make([]uint64, 3*dw) // one source row, averaged horizontally (scaled by sw)
	acc := make([]uint64, 3*dw)
	denom := uint64(sw) * uint64(sh)
	for oy := 0; oy < dh; oy++ {
		clear(acc)
		for _, ty := range ys[oy] {
			clear(row)
			line := src[ty.src*stride:]
			for ox := 0; ox < dw; ox++ {
				var r, g, b uint64
				for _, tx := range xs[ox] {
					p := line[3*tx.src:]
					w := uint64(tx.w)
					r += uint64(p[0]) * w
					g += uint64(p[1]) * w
					b += uint64(p[2]) * w
				}
				row[3*ox], row[3*ox+1], row[3*ox+2] = r, g, b
			}
			w := uint64(ty.w)
			for i, v := range row {
				acc[i] += v * w
			}
		}
		out := dst.Pix[oy*dst.Stride:]
		for ox := 0; ox < dw; ox++ {
			for c := 0; c < 3; c++ {
				out[4*ox+c] = byte((acc[3*ox+c] + denom/2) / denom)
			}
			out[4*ox+3] = 255
		}
	}
}

// A tap is one source pixel's weight in an output pixel's box.
type tap struct{ src, w int }

// spans lists, for each of the out output pixels along one axis of in
// source pixels, the source pixels its box covers and their overlaps. Output
// pixel j covers [j*in, (j+1)*in) and source pixel i [i*out, (i+1)*out), in
// units of 1/(in*out) of the axis, so the weights of one output pixel sum
// to in.
func spans(in, out int) [][]tap {
	res := make([][]tap, out)
	for j := range out {
		lo, hi := j*in, (j+1)*in
		for i := lo / out; i*out < hi; i++ {
			a, b := max(lo, i*out), min(hi, (i+1)*out)
			if b > a {
				res[j] = append(res[j], tap{i, b - a})
			}
		}
	}
	return res
}

// newImage wraps encoded bytes, with their digest for prefix accounting and
// their base64 for the request bodies.
func newImage(mime string, data []byte) *Image {
	return &Image{MIME: mime, Data: data, digest: sha256.Sum256(data), b64: base64.StdEncoding.AppendEncode(nil, data)}
}

// appendBase64 appends Data in base64.
func (im *Image) appendBase64(b []byte) []byte {
	if im.b64 != nil {
		return append(b, im.b64...)
	}
	return base64.StdEncoding.AppendEncode(b, im.Data)
}

// sum is the image's SHA-256, computed once where the package made the
// image and on demand for one a caller built.
func (im *Image) sum() [32]byte {
	if im.digest != ([32]byte{}) {
		return im.digest
	}
	return sha256.Sum256(im.Data)
}

func sumBytes(b []byte) [32]byte { return sha256.Sum256(b) }

func newRGBA(w, h int) *image.RGBA { return image.NewRGBA(image.Rect(0, 0, w, h)) }
