package served

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// LongSide is the longer side frames are sent at (Video-Index's screen,
// video_index/pool/screen.py): a frame larger than this is shrunk, a
// smaller one is sent as it is.
const LongSide = 448

// packFrames shrinks each frame to at most LongSide on its longer side (a
// box filter: each output pixel the mean of the input pixels it covers, in
// integers, so the same frame gives the same bytes everywhere) and packs
// them as an ImageBatch of 3 channels whose values are the bytes 0..255.
// The batch carries the pixels from Frames to Score through the interface
// the ONNX readers use; Score turns them back into bytes exactly.
func packFrames(ctx context.Context, frames []imageprep.Frame) (models.ImageBatch, error) {
	if len(frames) == 0 {
		return models.ImageBatch{}, nil
	}
	w0, h0 := frames[0].Width, frames[0].Height
	if w0 <= 0 || h0 <= 0 {
		return models.ImageBatch{}, fmt.Errorf("served: frame of %dx%d pixels", w0, h0)
	}
	w, h := fitLong(w0, h0, LongSide)
	b := models.ImageBatch{N: len(frames), C: 3, H: h, W: w, Data: make([]float32, len(frames)*3*h*w)}
	for i, f := range frames {
		if err := ctx.Err(); err != nil {
			return models.ImageBatch{}, err
		}
		if f.Width != w0 || f.Height != h0 {
			return models.ImageBatch{}, fmt.Errorf("served: frame %d is %dx%d, frame 0 %dx%d; one prompt's frames share a size", i, f.Width, f.Height, w0, h0)
		}
		stride := f.Stride
		if stride == 0 {
			stride = 3 * f.Width
		}
		if len(f.Pix) < stride*(f.Height-1)+3*f.Width {
			return models.ImageBatch{}, fmt.Errorf("served: frame %d holds %d bytes for %dx%d", i, len(f.Pix), f.Width, f.Height)
		}
		boxResize(f.Pix, stride, w0, h0, b.Data[i*3*h*w:(i+1)*3*h*w], w, h)
	}
	return b, nil
}

// fitLong returns w x h scaled so that the longer side is at most long,
// the aspect ratio kept (rounded, at least 1 pixel); never enlarged.
func fitLong(w, h, long int) (int, int) {
	if max(w, h) <= long {
		return w, h
	}
	if w >= h {
		return long, max(1, (h*long+w/2)/w)
	}
	return max(1, (w*long+h/2)/h), long
}

// boxResize writes the RGB image src (w0 x h0, stride bytes a row) into dst
// as planar R, G, B of w x h, each output pixel the rounded mean of the
// source pixels whose centres fall in its box.
func boxResize(src []byte, stride, w0, h0 int, dst []float32, w, h int) {
	plane := w * h
	for y := 0; y < h; y++ {
		y0, y1 := y*h0/h, max((y+1)*h0/h, y*h0/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*w0/w, max((x+1)*w0/w, x*w0/w+1)
			var sum [3]int
			for yy := y0; yy < y1; yy++ {
				row := src[yy*stride:]
				for xx := x0; xx < x1; xx++ {
					p := row[3*xx:]
					sum[0] += int(p[0])
					sum[1] += int(p[1])
					sum[2] += int(p[2])
				}
			}
			n := (y1 - y0) * (x1 - x0)
			for c := range 3 {
				dst[c*plane+y*w+x] = float32((sum[c] + n/2) / n)
			}
		}
	}
}

// unpack returns image i of b as interleaved RGB bytes.
func unpack(b models.ImageBatch, i int) ([]byte, error) {
	if b.C != 3 || b.H <= 0 || b.W <= 0 || len(b.Data) != b.N*3*b.H*b.W || i < 0 || i >= b.N {
		return nil, fmt.Errorf("served: image %d of a batch %dx%dx%dx%d holding %d values: not one Frames made", i, b.N, b.C, b.H, b.W, len(b.Data))
	}
	plane := b.H * b.W
	img := b.Data[i*3*plane : (i+1)*3*plane]
	out := make([]byte, 3*plane)
	for p := range plane {
		for c := range 3 {
			v := img[c*plane+p]
			if v < 0 || v > 255 || v != float32(int(v)) {
				return nil, fmt.Errorf("served: image %d holds %g, not a byte: not one Frames made", i, v)
			}
			out[3*p+c] = byte(v)
		}
	}
	return out, nil
}
