package imageprep

import "fmt"

// A Plan is what Batch computes for frames of one size, written out as
// tables, so that another implementation (kernels/cuda's GPU kernels) can
// produce the same output bit for bit without this package's loops: the
// fixed-point weights of both resize passes restricted to the pixels the
// crop keeps, the crop's placement, and the level tables of rescale and
// normalise.
//
// Both passes are always given as weights. An axis that is not resized
// gets one tap of weight 1 per output (start = the crop offset + k), which
// the fixed-point pass maps back to the input level exactly:
// (v<<Bits + half) >> Bits = v, and 255 saturates to 255.
type Plan struct {
	SrcW, SrcH int // the frame size the plan is for
	OutW, OutH int // the output image; FrameLen is 3*OutH*OutW

	// Output columns [J0, J1) and rows [I0, I1) come from the resized
	// image; the rest is padding, level 0 of each channel (LUT[c][0]).
	// An empty range means the whole output is padding.
	J0, J1, I0, I1 int

	// Horizontal pass, over source rows [Y0, Y1): its output column k
	// (output column J0+k) sums source columns HStart[k] ..
	// HStart[k]+HN[k]-1 with weights HW[k*HTaps:], plus half, shifted
	// right by Bits and clipped to 0..255.
	Y0, Y1 int
	HTaps  int
	HStart []int32
	HN     []int32
	HW     []int32

	// Vertical pass, over the horizontal pass's rows (row r is source row
	// Y0+r): output row I0+k sums rows VStart[k] .. VStart[k]+VN[k]-1 of
	// it with weights VW[k*VTaps:], rounded and clipped the same way.
	VTaps  int
	VStart []int32
	VN     []int32
	VW     []int32

	// Bits is the weights' fixed-point precision (Pillow's 22).
	Bits int
	// LUT is each channel's rescaled and normalised value of each level.
	LUT [3][256]float32
}

// Cols and Rows are the size of the region the passes compute.
func (pl *Plan) Cols() int { return pl.J1 - pl.J0 }
func (pl *Plan) Rows() int { return pl.I1 - pl.I0 }

// Plan returns the tables of p for frames of w x h. Frames of one video
// share a size, so a caller builds one Plan per size and reuses it.
func (p *Processor) Plan(w, h int) (*Plan, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("image preprocessing: plan for a %dx%d frame", w, h)
	}
	pl := &Plan{SrcW: w, SrcH: h, OutW: p.w, OutH: p.h, Bits: precisionBits, LUT: p.lut}
	rw, rh := p.resizedSize(w, h)
	// The same crop arithmetic as frame.
	ox, oy := 0, 0
	if p.cfg.DoCenterCrop {
		ox = floorDiv2(rw - p.w)
		oy = floorDiv2(rh - p.h)
	}
	j0, j1 := max(0, -ox), min(p.w, rw-ox)
	i0, i1 := max(0, -oy), min(p.h, rh-oy)
	if j0 >= j1 || i0 >= i1 {
		return pl, nil
	}
	pl.J0, pl.J1, pl.I0, pl.I1 = j0, j1, i0, i1
	cols, rows := j1-j0, i1-i0

	var ws weights
	if rh != h {
		computeWeights(&ws, h, rh, oy+i0, rows, p.filter)
		last := rows - 1
		pl.Y0, pl.Y1 = ws.start[0], ws.start[last]+ws.n[last]
		pl.VTaps, pl.VStart, pl.VN, pl.VW = tables(&ws, pl.Y0)
	} else {
		pl.Y0, pl.Y1 = oy+i0, oy+i1
		pl.VTaps, pl.VStart, pl.VN, pl.VW = identity(rows, 0)
	}
	if rw != w {
		computeWeights(&ws, w, rw, ox+j0, cols, p.filter)
		pl.HTaps, pl.HStart, pl.HN, pl.HW = tables(&ws, 0)
	} else {
		pl.HTaps, pl.HStart, pl.HN, pl.HW = identity(cols, ox+j0)
	}
	return pl, nil
}

// tables copies ws out as int32 tables, starts made relative to base.
func tables(ws *weights, base int) (taps int, start, n, w []int32) {
	count := len(ws.start)
	start, n = make([]int32, count), make([]int32, count)
	w = make([]int32, count*ws.taps)
	for k := 0; k < count; k++ {
		start[k], n[k] = int32(ws.start[k]-base), int32(ws.n[k])
	}
	copy(w, ws.w[:count*ws.taps])
	return ws.taps, start, n, w
}

// identity is the one-tap pass that copies input first+k to output k.
func identity(count, first int) (taps int, start, n, w []int32) {
	start, n, w = make([]int32, count), make([]int32, count), make([]int32, count)
	for k := range start {
		start[k], n[k], w[k] = int32(first+k), 1, 1<<precisionBits
	}
	return 1, start, n, w
}
