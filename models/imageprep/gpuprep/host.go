package gpuprep

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// Host's PrepDevice runs preprocess.cu's two kernels as Go loops: one call
// of prepHorizontal and prepVertical per GPU thread, over the same grid,
// on the same buffer layouts. It is what the tests hold to imageprep's
// output, so a change to a kernel's arithmetic must be made here too.

// Host is the preprocessing device on the CPU: the GPU's kernels ported to
// Go, the reference the GPU is held to and what lets everything but the
// device code be tested on any machine. The zero value is ready to use.
type Host struct{}

var _ PrepDevice = hostPrepDevice{}

// OpenPrep returns Host's PrepDevice.
func (Host) OpenPrep() (PrepDevice, error) { return hostPrepDevice{}, nil }

type hostPrepDevice struct{}

func (hostPrepDevice) Close() error { return nil }

// prepHalf is the rounding offset of the fixed-point sums (PREP_HALF).
const (
	prepBits = 22
	prepHalf = 1 << (prepBits - 1)
)

// prepShape is a plan's buffer geometry, shared by both devices.
type prepShape struct {
	frameBytes, srcStride int // packed frames: srcStride = 3*SrcW
	trows, cols, orows    int // tmp rows, crop columns, output rows computed
	tmpFrameBytes         int
	outFrameLen           int
}

// checkPlan refuses a plan the kernels cannot run and returns its shape.
func checkPlan(plan *imageprep.Plan, batch int) (prepShape, error) {
	if plan == nil || plan.SrcW <= 0 || plan.SrcH <= 0 || plan.OutW <= 0 || plan.OutH <= 0 {
		return prepShape{}, fmt.Errorf("preprocess: an empty plan")
	}
	if batch <= 0 || batch > 65535 || plan.OutH > 65535 || plan.Y1-plan.Y0 > 65535 {
		return prepShape{}, fmt.Errorf("preprocess: batch %d, %d output rows, %d source rows: each must be 1..65535 (a grid dimension)", batch, plan.OutH, plan.Y1-plan.Y0)
	}
	if plan.Bits != prepBits {
		return prepShape{}, fmt.Errorf("preprocess: the plan's weights have %d fractional bits, the kernels %d", plan.Bits, prepBits)
	}
	s := prepShape{srcStride: 3 * plan.SrcW, cols: plan.Cols(), orows: plan.Rows(), outFrameLen: 3 * plan.OutH * plan.OutW}
	s.frameBytes = plan.SrcH * s.srcStride
	if s.cols > 0 && s.orows > 0 {
		s.trows = plan.Y1 - plan.Y0
		if len(plan.HStart) != s.cols || len(plan.HN) != s.cols || len(plan.HW) != s.cols*plan.HTaps ||
			len(plan.VStart) != s.orows || len(plan.VN) != s.orows || len(plan.VW) != s.orows*plan.VTaps {
			return prepShape{}, fmt.Errorf("preprocess: the plan's tables do not match its %d x %d region", s.cols, s.orows)
		}
	} else {
		s.cols, s.orows = 0, 0
	}
	s.tmpFrameBytes = s.trows * 3 * s.cols
	return s, nil
}

func (hostPrepDevice) NewPrep(plan *imageprep.Plan, batch int) (Prep, error) {
	s, err := checkPlan(plan, batch)
	if err != nil {
		return nil, err
	}
	lut := make([]float32, 3*256)
	for c := range plan.LUT {
		copy(lut[c*256:], plan.LUT[c][:])
	}
	return &hostPrep{plan: plan, shape: s, batch: batch, lut: lut,
		frames: make([]byte, batch*s.frameBytes),
		tmp:    make([]byte, batch*s.tmpFrameBytes),
		out:    make([]float32, batch*s.outFrameLen)}, nil
}

type hostPrep struct {
	plan   *imageprep.Plan
	shape  prepShape
	batch  int
	lut    []float32
	frames []byte
	tmp    []byte
	out    []float32
}

func (p *hostPrep) Load(frames []imageprep.Frame) error {
	if err := checkFrames(p.plan, p.batch, frames); err != nil {
		return err
	}
	for i, f := range frames {
		packFrame(p.frames[i*p.shape.frameBytes:(i+1)*p.shape.frameBytes], f)
	}
	return nil
}

// packFrame copies f's rows into dst, rows packed.
func packFrame(dst []byte, f imageprep.Frame) {
	row, stride := 3*f.Width, frameStride(f)
	if stride == row {
		copy(dst, f.Pix[:f.Height*row])
		return
	}
	for y := 0; y < f.Height; y++ {
		copy(dst[y*row:(y+1)*row], f.Pix[y*stride:y*stride+row])
	}
}

// Run implements Prep: the GPU's grid, one frame at a time so that ctx
// is seen between frames.
func (p *hostPrep) Run(ctx context.Context, n int) error {
	if n <= 0 || n > p.batch {
		return fmt.Errorf("preprocess: run %d frames of a batch of %d", n, p.batch)
	}
	s, pl := &p.shape, p.plan
	for f := 0; f < n; f++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for r := 0; r < s.trows; r++ {
			for k := 0; k < s.cols; k++ {
				prepHorizontal(p.frames, s.frameBytes, s.srcStride, pl.Y0, pl.HStart, pl.HN, pl.HW, pl.HTaps, s.cols, p.tmp, s.trows, f, r, k)
			}
		}
		for i := 0; i < pl.OutH; i++ {
			for j := 0; j < pl.OutW; j++ {
				prepVertical(p.tmp, s.trows, s.cols, s.orows, pl.VStart, pl.VN, pl.VW, pl.VTaps, pl.I0, pl.J0, pl.OutH, pl.OutW, p.lut, p.out, f, i, j)
			}
		}
	}
	return nil
}

func (p *hostPrep) Sync() error { return nil }

func (p *hostPrep) Output(dst []float32, n int) error {
	if n < 0 || n > p.batch || len(dst) < n*p.shape.outFrameLen {
		return fmt.Errorf("preprocess: output of %d frames into %d values", n, len(dst))
	}
	copy(dst, p.out[:n*p.shape.outFrameLen])
	return nil
}

func (p *hostPrep) Close() error { p.frames, p.tmp, p.out = nil, nil, nil; return nil }

// prepHorizontal is prep_horizontal's thread (frame f, tmp row r, crop
// column k).
func prepHorizontal(frames []byte, frameBytes, srcStride, y0 int, hstart, hn, hw []int32, taps, cols int, tmp []byte, trows, f, r, k int) {
	src := frames[f*frameBytes+(y0+r)*srcStride+3*int(hstart[k]):]
	w := hw[k*taps:]
	n := int(hn[k])
	s0, s1, s2 := int32(prepHalf), int32(prepHalf), int32(prepHalf)
	for t := 0; t < n; t++ {
		wt := w[t]
		s0 += int32(src[3*t]) * wt
		s1 += int32(src[3*t+1]) * wt
		s2 += int32(src[3*t+2]) * wt
	}
	d := tmp[(f*trows+r)*3*cols+3*k:]
	d[0], d[1], d[2] = prepClip8(s0), prepClip8(s1), prepClip8(s2)
}

// prepVertical is prep_vertical's thread (frame f, output row i, output
// column j).
func prepVertical(tmp []byte, trows, cols, orows int, vstart, vn, vw []int32, taps, i0, j0, outH, outW int, lut, out []float32, f, i, j int) {
	plane := outH * outW
	o := out[f*3*plane+i*outW+j:]
	k, x := i-i0, j-j0
	if k < 0 || k >= orows || x < 0 || x >= cols {
		o[0], o[plane], o[2*plane] = lut[0], lut[256], lut[512]
		return
	}
	rowBytes := 3 * cols
	src := tmp[f*trows*rowBytes+int(vstart[k])*rowBytes+3*x:]
	w := vw[k*taps:]
	n := int(vn[k])
	s0, s1, s2 := int32(prepHalf), int32(prepHalf), int32(prepHalf)
	for t := 0; t < n; t++ {
		wt := w[t]
		p := src[t*rowBytes:]
		s0 += int32(p[0]) * wt
		s1 += int32(p[1]) * wt
		s2 += int32(p[2]) * wt
	}
	o[0], o[plane], o[2*plane] = lut[prepClip8(s0)], lut[256+int(prepClip8(s1))], lut[512+int(prepClip8(s2))]
}

// prepClip8 is the kernels' prepClip8.
func prepClip8(v int32) byte {
	if v >= 255<<prepBits {
		return 255
	}
	if v <= 0 {
		return 0
	}
	return byte(v >> prepBits)
}
