package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// The prep_nv12 check: the GPU frame path's preprocessing from pictures
// as NVDEC leaves them in device memory (NV12 surfaces) to CLIP ViT-B/32's
// input tensor, prep_nv12 then the two passes, against kernels/cuda's Go
// port of prep_nv12 (NV12ToRGB) and models/imageprep run here beforehand,
// bit for bit (both are the same integer arithmetic), and its rate at
// batch 256 beside the 20,000 frames/s. The GPU machine has no
// FFmpeg, so the surfaces are generated from the seed and uploaded where
// NVDEC would have decoded them.
const (
	nv12Distinct = 4   // distinct seeded pictures per case; the rate batch repeats them
	nv12Pitch    = 512 // surfaces' pitch: the width rounded up past it to this
	nv12RowAlign = 16  // surfaces' rows: the height rounded up to this (1080 -> 1088, as NVDEC's)
)

// nv12Cases: both frame sizes the audit's videos mostly have, each in
// both limited-range matrices broadcast video is tagged with (colour
// spaces as FFmpeg's AVColorSpace numbers them).
var nv12Cases = []struct {
	name   string
	w, h   int
	cs     int
	matrix string
}{
	{"prep_nv12/1080p_bt709", 1920, 1080, 1, "BT.709"},
	{"prep_nv12/1080p_bt601", 1920, 1080, 6, "BT.601 (SMPTE 170M)"},
	{"prep_nv12/720p_bt709", 1280, 720, 1, "BT.709"},
	{"prep_nv12/720p_bt601", 1280, 720, 6, "BT.601 (SMPTE 170M)"},
}

// An nv12Surface is one picture laid out as an NVDEC surface: luma rows at
// pitch, rounded up to nv12RowAlign rows, then the interleaved chroma rows
// at the same pitch, in one buffer. The bytes past the picture (pitch
// padding, spare rows) are noise, so a kernel that reads them shows.
type nv12Surface struct {
	buf            []byte
	w, h, pitch, r int // r: rows before the chroma plane
}

func (s nv12Surface) luma() []byte   { return s.buf[:s.r*s.pitch] }
func (s nv12Surface) chroma() []byte { return s.buf[s.r*s.pitch:] }

// rgb is the picture through NV12ToRGB, prep_nv12's Go port.
func (s nv12Surface) rgb(m nv12.Matrix) (imageprep.Frame, error) {
	pix := make([]byte, 3*s.w*s.h)
	if err := gpuprep.NV12ToRGB(pix, s.luma(), s.chroma(), s.pitch, s.pitch, s.w, s.h, m); err != nil {
		return imageprep.Frame{}, err
	}
	return imageprep.Frame{Pix: pix, Width: s.w, Height: s.h}, nil
}

// nv12Surfaces returns case c's seeded pictures, in turn: noise on every
// level of both planes (below 16 and above 235 included, where the
// clipping decides), hard-edged blocks at the range's and the byte's
// extremes (saturated colours), and noisy ramps of luma along x and chroma
// along y.
func nv12Surfaces(seed uint64, c int) []nv12Surface {
	w, h := nv12Cases[c].w, nv12Cases[c].h
	rng := rand.New(rand.NewPCG(seed, 0x12+uint64(c)))
	pitch := (w/nv12Pitch + 1) * nv12Pitch
	rows := (h + nv12RowAlign - 1) / nv12RowAlign * nv12RowAlign
	levels := []int{0, 16, 128, 235, 240, 255}
	out := make([]nv12Surface, nv12Distinct)
	for n := range out {
		s := nv12Surface{buf: make([]byte, pitch*(rows+(h+1)/2)), w: w, h: h, pitch: pitch, r: rows}
		for i := range s.buf {
			s.buf[i] = byte(rng.IntN(256))
		}
		if n%3 != 0 {
			luma, chroma := s.luma(), s.chroma()
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					v := x*219/w + 16 + rng.IntN(9) - 4
					if n%3 == 1 {
						v = levels[(x/(7+n)+y/(5+n))%len(levels)]
					}
					luma[y*pitch+x] = byte(min(255, max(0, v)))
				}
			}
			for y := 0; y < (h+1)/2; y++ {
				for x := 0; x < w; x += 2 {
					u, v := y*224/h+16, 240-y*224/h
					if n%3 == 1 {
						u, v = levels[(x/(9+n))%len(levels)], levels[(y/(4+n)+1)%len(levels)]
					}
					chroma[y*pitch+x], chroma[y*pitch+x+1] = byte(u), byte(v)
				}
			}
		}
		out[n] = s
	}
	return out
}

func digestSurfaces(ss []nv12Surface) string {
	h := sha256.New()
	for _, s := range ss {
		h.Write(s.buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// nv12Processor is the tower input the check writes: CLIP ViT-B/32's.
func nv12Processor() (*imageprep.Processor, error) { return prepProcessor(prepCases[0].config) }

func nv12What(c int, p *imageprep.Processor) string {
	k := nv12Cases[c]
	h, w := p.OutputSize()
	return fmt.Sprintf("%dx%d NV12 surfaces (%s limited range, pitch %d) through prep_nv12 to %s's %dx%d float32 NCHW input, batch %d",
		k.w, k.h, k.matrix, (k.w/nv12Pitch+1)*nv12Pitch, p.Config().Type, w, h, prepBatch)
}

// nv12Expected is the tensor the GPU must write for case c: NV12ToRGB,
// then imageprep, here; with the time both took.
func nv12Expected(ctx context.Context, p *imageprep.Processor, c int, ss []nv12Surface) ([]float32, []imageprep.Frame, float64, error) {
	m := nv12.MatrixFor(nv12Cases[c].cs, false)
	start := time.Now()
	frames := make([]imageprep.Frame, len(ss))
	for i, s := range ss {
		f, err := s.rgb(m)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("picture %d: %w", i, err)
		}
		frames[i] = f
	}
	dst := make([]float32, len(frames)*p.FrameLen())
	if err := p.Batch(ctx, frames, dst); err != nil {
		return nil, nil, 0, err
	}
	return dst, frames, time.Since(start).Seconds(), nil
}

// nv12Reference is the prep_nv12 cases' CPU side, run on the build
// machine: the tensor's digest and the CPU's frames/s through the Go port
// and imageprep (all threads).
func nv12Reference(ctx context.Context, seed uint64) ([]RefCheck, error) {
	p, err := nv12Processor()
	if err != nil {
		return nil, err
	}
	var out []RefCheck
	for c, k := range nv12Cases {
		ss := nv12Surfaces(seed, c)
		dst, _, secs, err := nv12Expected(ctx, p, c, ss)
		if err != nil {
			return nil, fmt.Errorf("reference %s: %w", k.name, err)
		}
		out = append(out, RefCheck{Name: k.name, What: nv12What(c, p), Count: int64(len(dst)), SHA256: digestFloats(dst), Seconds: secs,
			PrepFigures: &PrepFigures{FramesSHA256: digestSurfaces(ss), CPUFramesPS: float64(len(ss)) / secs}})
	}
	return out, nil
}

// nv12Bytes is what one picture moves through device memory: the surface
// read, the RGB frame written and read, the intermediate image written and
// read, the tensor written.
func nv12Bytes(p *imageprep.Processor, w, h int) (float64, error) {
	plan, err := p.Plan(w, h)
	if err != nil {
		return 0, err
	}
	tmp := float64((plan.Y1 - plan.Y0) * plan.Cols() * 3)
	return 1.5*float64(w*h) + 2*3*float64(w*h) + 2*tmp + 4*float64(p.FrameLen()), nil
}
