package imageprep

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Version names the preprocessing this package does, for the content keys of
// feature caches: it changes whenever any output value would.
const Version = "imageprep/1 (PIL 8-bit resample, transformers float32 rescale and normalize)"

// A Frame is one RGB image: 3 bytes a pixel, rows top to bottom, as decode/
// produces. Stride is the bytes from one row to the next; 0 means 3*Width.
type Frame struct {
	Pix    []byte
	Width  int
	Height int
	Stride int
}

func (f Frame) stride() int {
	if f.Stride == 0 {
		return 3 * f.Width
	}
	return f.Stride
}

// A Processor applies one Config to batches of frames. It is safe for
// concurrent use; each call uses its own scratch memory, kept for reuse.
type Processor struct {
	cfg     Config
	h, w    int             // output size
	lut     [3][256]float32 // rescaled and normalised value of each level
	filter  filter
	workers int
	scratch sync.Pool // *scratch
}

// Options adjust a Processor.
type Options struct {
	// Workers is how many frames are processed at once; 0 means GOMAXPROCS.
	// The output does not depend on it.
	Workers int
}

// New checks cfg and returns its Processor. The output size must not depend
// on the frame: a shortest-edge resize needs a centre crop after it.
func New(cfg Config, opts Options) (*Processor, error) {
	p := &Processor{cfg: cfg, filter: filterFor(cfg.Resample), workers: opts.Workers}
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case cfg.DoCenterCrop:
		if cfg.CropHeight <= 0 || cfg.CropWidth <= 0 {
			return nil, fmt.Errorf("image preprocessing: centre crop of %dx%d", cfg.CropWidth, cfg.CropHeight)
		}
		p.h, p.w = cfg.CropHeight, cfg.CropWidth
	case cfg.DoResize && cfg.ShortestEdge == 0:
		p.h, p.w = cfg.Height, cfg.Width
	default:
		return nil, fmt.Errorf("image preprocessing: the output size would depend on each frame's size (resize %v, shortest edge %d, no centre crop); a batch needs one size", cfg.DoResize, cfg.ShortestEdge)
	}
	if cfg.DoResize && cfg.ShortestEdge == 0 && (cfg.Height <= 0 || cfg.Width <= 0) {
		return nil, fmt.Errorf("image preprocessing: resize to %dx%d", cfg.Width, cfg.Height)
	}
	if cfg.DoResize && cfg.Resample == Nearest {
		return nil, fmt.Errorf("image preprocessing: resample 0 (nearest) is not supported")
	}
	for c := 0; c < 3; c++ {
		for v := 0; v < 256; v++ {
			p.lut[c][v] = level(float64(v), c, &cfg)
		}
	}
	return p, nil
}

// level is transformers' rescale then normalize for one value: rescale
// multiplies in float64 and stores float32; normalize subtracts and divides
// in float32 (image_transforms.rescale and .normalize).
func level(v float64, c int, cfg *Config) float32 {
	x := float32(v)
	if cfg.DoRescale {
		x = float32(v * cfg.RescaleFactor)
	}
	if cfg.DoNormalize {
		x = (x - float32(cfg.Mean[c])) / float32(cfg.Std[c])
	}
	return x
}

// OutputSize is the height and width of each output image.
func (p *Processor) OutputSize() (h, w int) { return p.h, p.w }

// FrameLen is the number of float32 values Batch writes per frame: 3*H*W.
func (p *Processor) FrameLen() int { return 3 * p.h * p.w }

// Config returns the configuration p applies.
func (p *Processor) Config() Config { return p.cfg }

// resizedSize is the size an in-frame of w x h has after the resize step:
// for a shortest edge S, the short side becomes S and the long side
// int(S * long / short), truncated (transformers'
// get_resize_output_image_size with default_to_square=False).
func (p *Processor) resizedSize(w, h int) (rw, rh int) {
	c := &p.cfg
	if !c.DoResize {
		return w, h
	}
	if c.ShortestEdge == 0 {
		return c.Width, c.Height
	}
	s := c.ShortestEdge
	if w <= h {
		return s, int(float64(s*h) / float64(w))
	}
	return int(float64(s*w) / float64(h)), s
}

// Batch writes frames as one NCHW float32 tensor, RGB channel order, into
// dst, which must hold len(frames)*FrameLen() values. Frames are processed
// in parallel; the result does not depend on the number of workers. A frame
// whose size does not match its pixels is an error naming its position, and
// nothing is written for any frame. Batch stops early when ctx ends.
func (p *Processor) Batch(ctx context.Context, frames []Frame, dst []float32) error {
	if len(dst) < len(frames)*p.FrameLen() {
		return fmt.Errorf("image preprocessing: output holds %d values, %d frames need %d", len(dst), len(frames), len(frames)*p.FrameLen())
	}
	for i, f := range frames {
		if f.Width <= 0 || f.Height <= 0 || f.Stride < 0 || (f.Stride != 0 && f.Stride < 3*f.Width) {
			return fmt.Errorf("image preprocessing: frame %d: size %dx%d, stride %d", i, f.Width, f.Height, f.Stride)
		}
		if need := (f.Height-1)*f.stride() + 3*f.Width; len(f.Pix) < need {
			return fmt.Errorf("image preprocessing: frame %d: %d bytes of pixels, %dx%d RGB needs %d", i, len(f.Pix), f.Width, f.Height, need)
		}
	}
	workers := min(p.workers, len(frames))
	if workers <= 1 {
		s := p.getScratch()
		defer p.scratch.Put(s)
		for i, f := range frames {
			if err := ctx.Err(); err != nil {
				return err
			}
			p.frame(s, f, dst[i*p.FrameLen():(i+1)*p.FrameLen()])
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := p.getScratch()
			defer p.scratch.Put(s)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(frames) || ctx.Err() != nil {
					return
				}
				p.frame(s, frames[i], dst[i*p.FrameLen():(i+1)*p.FrameLen()])
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// scratch is one worker's reusable memory.
type scratch struct {
	hw, vw weights
	tmp    []byte  // horizontal pass output: needed source rows x crop columns x 3
	acc    []int32 // vertical pass sums for one output row
	row    []byte  // one output row of levels
}

func (p *Processor) getScratch() *scratch {
	if s, ok := p.scratch.Get().(*scratch); ok {
		return s
	}
	return new(scratch)
}

// frame resizes, crops and normalises one frame into out (3*h*w values).
// Only the resized pixels that survive the crop are computed; each one is
// computed exactly as a full resize would.
func (p *Processor) frame(s *scratch, f Frame, out []float32) {
	rw, rh := p.resizedSize(f.Width, f.Height)
	// Crop offsets: floor((resized - crop) / 2); negative means the crop is
	// larger and is padded with level 0, as transformers' center_crop pads.
	ox, oy := 0, 0
	if p.cfg.DoCenterCrop {
		ox = floorDiv2(rw - p.w)
		oy = floorDiv2(rh - p.h)
	}
	// Output columns [j0, j1) and rows [i0, i1) come from the resized image.
	j0, j1 := max(0, -ox), min(p.w, rw-ox)
	i0, i1 := max(0, -oy), min(p.h, rh-oy)
	plane := p.h * p.w
	if j0 >= j1 || i0 >= i1 {
		fillPad(out, plane, &p.lut)
		return
	}
	if j0 > 0 || j1 < p.w || i0 > 0 || i1 < p.h {
		fillPad(out, plane, &p.lut)
	}
	cols := j1 - j0
	stride := f.stride()

	// Source rows the vertical pass reads, and the horizontal pass into tmp.
	resizeX, resizeY := rw != f.Width, rh != f.Height
	var y0, y1 int
	if resizeY {
		computeWeights(&s.vw, f.Height, rh, oy+i0, i1-i0, p.filter)
		last := i1 - i0 - 1
		y0, y1 = s.vw.start[0], s.vw.start[last]+s.vw.n[last]
	} else {
		y0, y1 = oy+i0, oy+i1
	}
	rowBytes := 3 * cols
	s.tmp = resizeBytes(s.tmp, (y1-y0)*rowBytes)
	if resizeX {
		computeWeights(&s.hw, f.Width, rw, ox+j0, cols, p.filter)
		for y := y0; y < y1; y++ {
			horizontal(s.tmp[(y-y0)*rowBytes:(y-y0+1)*rowBytes], f.Pix[y*stride:], &s.hw)
		}
	} else {
		for y := y0; y < y1; y++ {
			copy(s.tmp[(y-y0)*rowBytes:(y-y0+1)*rowBytes], f.Pix[y*stride+3*(ox+j0):])
		}
	}

	s.acc = resizeInt32s(s.acc, rowBytes)
	s.row = resizeBytes(s.row, rowBytes)
	for i := i0; i < i1; i++ {
		var row []byte
		if resizeY {
			k := i - i0
			vertical(s.row, s.acc, s.tmp, rowBytes, s.vw.start[k]-y0, s.vw.n[k], s.vw.w[k*s.vw.taps:])
			row = s.row
		} else {
			row = s.tmp[(oy+i-y0)*rowBytes : (oy+i-y0+1)*rowBytes]
		}
		base := i*p.w + j0
		r, g, b := out[base:base+cols], out[plane+base:plane+base+cols], out[2*plane+base:2*plane+base+cols]
		for j := 0; j < cols; j++ {
			px := row[3*j : 3*j+3]
			r[j] = p.lut[0][px[0]]
			g[j] = p.lut[1][px[1]]
			b[j] = p.lut[2][px[2]]
		}
	}
}

// horizontal resamples one source row (interleaved RGB) into dst, one output
// pixel per entry of ws.
func horizontal(dst, src []byte, ws *weights) {
	const half = 1 << (precisionBits - 1)
	for k := range ws.start {
		w := ws.w[k*ws.taps : k*ws.taps+ws.n[k]]
		p := src[3*ws.start[k] : 3*(ws.start[k]+len(w))]
		s0, s1, s2 := int32(half), int32(half), int32(half)
		for len(p) >= 6 && len(w) >= 2 {
			w0, w1 := w[0], w[1]
			s0 += int32(p[0])*w0 + int32(p[3])*w1
			s1 += int32(p[1])*w0 + int32(p[4])*w1
			s2 += int32(p[2])*w0 + int32(p[5])*w1
			p, w = p[6:], w[2:]
		}
		if len(p) >= 3 && len(w) > 0 {
			wt := w[0]
			s0 += int32(p[0]) * wt
			s1 += int32(p[1]) * wt
			s2 += int32(p[2]) * wt
		}
		dst[3*k], dst[3*k+1], dst[3*k+2] = clip8(s0), clip8(s1), clip8(s2)
	}
}

// vertical combines n rows of tmp starting at row first with weights w into dst.
func vertical(dst []byte, acc []int32, tmp []byte, rowBytes, first, n int, w []int32) {
	const half = 1 << (precisionBits - 1)
	for x := range acc {
		acc[x] = half
	}
	t := 0
	for ; t+1 < n; t += 2 { // two rows a sweep: half the loads and stores of acc
		w0, w1 := w[t], w[t+1]
		r0 := tmp[(first+t)*rowBytes : (first+t+1)*rowBytes]
		r1 := tmp[(first+t+1)*rowBytes : (first+t+2)*rowBytes]
		r1 = r1[:len(r0)]
		a := acc[:len(r0)]
		for x, v := range r0 {
			a[x] += int32(v)*w0 + int32(r1[x])*w1
		}
	}
	if t < n {
		wt := w[t]
		src := tmp[(first+t)*rowBytes : (first+t+1)*rowBytes]
		for x, v := range src {
			acc[x] += int32(v) * wt
		}
	}
	for x, v := range acc {
		dst[x] = clip8(v)
	}
}

// fillPad sets every value to the level of a zero pixel, the value of the
// padding transformers adds when the crop is larger than the image.
func fillPad(out []float32, plane int, lut *[3][256]float32) {
	for c := 0; c < 3; c++ {
		v := lut[c][0]
		o := out[c*plane : (c+1)*plane]
		for i := range o {
			o[i] = v
		}
	}
}

func floorDiv2(x int) int { return int(math.Floor(float64(x) / 2)) }

func resizeBytes(s []byte, n int) []byte {
	if cap(s) < n {
		return make([]byte, n)
	}
	return s[:n]
}
