//go:build cuda

package gpuprep

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/vidscreen/vidscreen/gpu/cudactx"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// preprocessPTX is preprocess.cu compiled by `make ptx` for compute_80,
// a module of its own beside kernels.ptx.
//
//go:embed preprocess.ptx
var preprocessPTX string

// prepBlock is both kernels' block: 128 threads along a row, so a 224-wide
// output is two blocks and a 448-wide one four, with little idle.
const prepBlock = 128

// OpenGPU loads the preprocessing kernels into c's context. The returned
// device's Close unloads them; c must outlive it.
func OpenGPU(c *cudactx.Context) (_ PrepDevice, err error) {
	unbind, err := c.Bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	d := &gpuPrepDevice{c: c}
	if d.mod, err = cu.LoadData(preprocessPTX); err != nil {
		return nil, fmt.Errorf("cuda:%d: load preprocessing kernels (PTX JIT): %w", c.Ordinal(), err)
	}
	for _, f := range []struct {
		fn   *cu.Function
		name string
	}{{&d.horizontal, "prep_horizontal"}, {&d.vertical, "prep_vertical"}, {&d.nv12, "prep_nv12"}} {
		if *f.fn, err = d.mod.Function(f.name); err != nil {
			return nil, errors.Join(fmt.Errorf("cuda:%d: kernel %s: %w", c.Ordinal(), f.name, err), d.mod.Unload())
		}
	}
	return d, nil
}

type gpuPrepDevice struct {
	c                    *cudactx.Context
	mod                  cu.Module
	horizontal, vertical cu.Function
	nv12                 cu.Function // nv12_cuda.go
}

func (d *gpuPrepDevice) Close() error {
	if d.mod == (cu.Module{}) {
		return nil
	}
	unbind, err := d.c.Bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = d.mod.Unload()
	d.mod = cu.Module{}
	if err != nil {
		return fmt.Errorf("cuda:%d: unload preprocessing kernels: %w", d.c.Ordinal(), err)
	}
	return nil
}

// gpuPrep holds, in device memory from cuMemAlloc, the batch of frames,
// the plan's tables (one int32 buffer: hstart, hn, hw, vstart, vn, vw),
// the level tables, the intermediate image and the output tensor.
type gpuPrep struct {
	d       *gpuPrepDevice
	plan    *imageprep.Plan
	shape   prepShape
	batch   int
	stream  cu.Stream
	frames  cu.DevicePtr
	tables  cu.DevicePtr
	offsets [6]int64 // byte offsets of the six tables in tables
	lut     cu.DevicePtr
	tmp     cu.DevicePtr
	out     cu.DevicePtr
	staging []byte // a strided frame, packed before its copy
}

// NewPrep implements PrepDevice: a stream and the buffers, the tables
// copied once. On error everything allocated so far is freed.
func (d *gpuPrepDevice) NewPrep(plan *imageprep.Plan, batch int) (_ Prep, err error) {
	s, err := checkPlan(plan, batch)
	if err != nil {
		return nil, err
	}
	unbind, err := d.c.Bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	p := &gpuPrep{d: d, plan: plan, shape: s, batch: batch}
	defer func() {
		if err != nil {
			err = errors.Join(fmt.Errorf("cuda:%d: preprocess %dx%d: %w", d.c.Ordinal(), plan.SrcW, plan.SrcH, err), p.free())
		}
	}()
	if p.stream, err = cu.MakeStream(cu.NonBlocking); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	var tab []int32
	for i, t := range [][]int32{plan.HStart, plan.HN, plan.HW, plan.VStart, plan.VN, plan.VW} {
		if s.cols == 0 {
			t = nil // an all-padding plan runs no pass
		}
		p.offsets[i] = int64(len(tab)) * 4
		tab = append(tab, t...)
	}
	tab = append(tab, 0) // cuMemAlloc refuses zero bytes
	lut := make([]float32, 3*256)
	for c := range plan.LUT {
		copy(lut[c*256:], plan.LUT[c][:])
	}
	if err = cudactx.AllocBufs(
		cudactx.DevBuf{P: &p.frames, Bytes: int64(batch) * int64(s.frameBytes)},
		cudactx.DevBuf{P: &p.tables, Bytes: int64(len(tab)) * 4},
		cudactx.DevBuf{P: &p.lut, Bytes: int64(len(lut)) * 4},
		cudactx.DevBuf{P: &p.tmp, Bytes: max(1, int64(batch)*int64(s.tmpFrameBytes))},
		cudactx.DevBuf{P: &p.out, Bytes: int64(batch) * int64(s.outFrameLen) * 4},
	); err != nil {
		return nil, err
	}
	// Copies on the stream, so the kernels queued after them see them.
	if err = cu.MemcpyHtoDAsync(p.tables, unsafe.Pointer(&tab[0]), int64(len(tab))*4, p.stream); err != nil {
		return nil, fmt.Errorf("copy tables: %w", err)
	}
	if err = cu.MemcpyHtoDAsync(p.lut, unsafe.Pointer(&lut[0]), int64(len(lut))*4, p.stream); err != nil {
		return nil, fmt.Errorf("copy level tables: %w", err)
	}
	if err = p.stream.Synchronize(); err != nil {
		return nil, fmt.Errorf("copy tables: %w", err)
	}
	return p, nil
}

func (p *gpuPrep) free() error {
	errs := cudactx.FreeBufs(&p.frames, &p.tables, &p.lut, &p.tmp, &p.out)
	if p.stream != (cu.Stream{}) {
		if err := p.stream.Destroy(); err != nil {
			errs = append(errs, err)
		}
		p.stream = cu.Stream{}
	}
	return errors.Join(errs...)
}

// Load implements Prep: one copy per frame on the stream, so it follows
// the work already queued (which may still read the slots) and precedes
// the next Run; a strided frame is packed on the host first. From pageable
// memory the driver stages each copy before returning, so frames may be
// reused as soon as Load returns.
func (p *gpuPrep) Load(frames []imageprep.Frame) error {
	if err := checkFrames(p.plan, p.batch, frames); err != nil {
		return err
	}
	if len(frames) == 0 {
		return nil
	}
	unbind, err := p.d.c.Bind()
	if err != nil {
		return err
	}
	defer unbind()
	fb := p.shape.frameBytes
	for i, f := range frames {
		src := f.Pix
		if frameStride(f) != 3*f.Width {
			if len(p.staging) < fb {
				p.staging = make([]byte, fb)
			}
			packFrame(p.staging, f)
			src = p.staging
		}
		dst := p.frames + cu.DevicePtr(i*fb)
		if err := cu.MemcpyHtoDAsync(dst, unsafe.Pointer(&src[0]), int64(fb), p.stream); err != nil {
			return fmt.Errorf("cuda:%d: copy frame %d: %w", p.d.c.Ordinal(), i, err)
		}
	}
	return nil
}

// Run implements Prep: prep_horizontal then prep_vertical on the stream.
func (p *gpuPrep) Run(ctx context.Context, n int) error {
	if n <= 0 || n > p.batch {
		return fmt.Errorf("preprocess: run %d frames of a batch of %d", n, p.batch)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	unbind, err := p.d.c.Bind()
	if err != nil {
		return err
	}
	defer unbind()
	s, pl := &p.shape, p.plan
	tab := func(i int) cu.DevicePtr { return p.tables + cu.DevicePtr(p.offsets[i]) }
	hstart, hn, hw, vstart, vn, vw := tab(0), tab(1), tab(2), tab(3), tab(4), tab(5)
	cols, trows, orows := int64(s.cols), int64(s.trows), int64(s.orows)
	if s.cols > 0 {
		frameBytes, srcStride, y0, taps := int64(s.frameBytes), int64(s.srcStride), int64(pl.Y0), int64(pl.HTaps)
		if err := p.d.horizontal.Launch((s.cols+prepBlock-1)/prepBlock, s.trows, n, prepBlock, 1, 1, 0, p.stream, []unsafe.Pointer{
			unsafe.Pointer(&p.frames), unsafe.Pointer(&frameBytes), unsafe.Pointer(&srcStride), unsafe.Pointer(&y0),
			unsafe.Pointer(&hstart), unsafe.Pointer(&hn), unsafe.Pointer(&hw), unsafe.Pointer(&taps),
			unsafe.Pointer(&cols), unsafe.Pointer(&p.tmp)}); err != nil {
			return fmt.Errorf("cuda:%d: prep_horizontal: %w", p.d.c.Ordinal(), err)
		}
	}
	taps, i0, j0, outH, outW := int64(pl.VTaps), int64(pl.I0), int64(pl.J0), int64(pl.OutH), int64(pl.OutW)
	if err := p.d.vertical.Launch((pl.OutW+prepBlock-1)/prepBlock, pl.OutH, n, prepBlock, 1, 1, 0, p.stream, []unsafe.Pointer{
		unsafe.Pointer(&p.tmp), unsafe.Pointer(&trows), unsafe.Pointer(&cols), unsafe.Pointer(&orows),
		unsafe.Pointer(&vstart), unsafe.Pointer(&vn), unsafe.Pointer(&vw), unsafe.Pointer(&taps),
		unsafe.Pointer(&i0), unsafe.Pointer(&j0), unsafe.Pointer(&outH), unsafe.Pointer(&outW),
		unsafe.Pointer(&p.lut), unsafe.Pointer(&p.out)}); err != nil {
		return fmt.Errorf("cuda:%d: prep_vertical: %w", p.d.c.Ordinal(), err)
	}
	return nil
}

// Sync implements Prep.
func (p *gpuPrep) Sync() error {
	unbind, err := p.d.c.Bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := p.stream.Synchronize(); err != nil {
		return fmt.Errorf("cuda:%d: preprocess: %w", p.d.c.Ordinal(), err)
	}
	return nil
}

// Output implements Prep: a copy on the stream, after the queued work.
func (p *gpuPrep) Output(dst []float32, n int) error {
	if n < 0 || n > p.batch || len(dst) < n*p.shape.outFrameLen {
		return fmt.Errorf("preprocess: output of %d frames into %d values", n, len(dst))
	}
	if n == 0 {
		return nil
	}
	unbind, err := p.d.c.Bind()
	if err != nil {
		return err
	}
	defer unbind()
	bytes := int64(n) * int64(p.shape.outFrameLen) * 4
	if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), p.out, bytes, p.stream); err != nil {
		return fmt.Errorf("cuda:%d: copy tensor: %w", p.d.c.Ordinal(), err)
	}
	if err := p.stream.Synchronize(); err != nil {
		return fmt.Errorf("cuda:%d: copy tensor: %w", p.d.c.Ordinal(), err)
	}
	return nil
}

// DeviceOutput implements DevicePrep.
func (p *gpuPrep) DeviceOutput() (uintptr, int64) {
	return uintptr(p.out), int64(p.batch) * int64(p.shape.outFrameLen) * 4
}

// Close implements Prep: waits for the stream and frees everything.
func (p *gpuPrep) Close() error {
	unbind, err := p.d.c.Bind()
	if err != nil {
		return err
	}
	defer unbind()
	if p.stream != (cu.Stream{}) {
		if err := p.stream.Synchronize(); err != nil {
			return errors.Join(fmt.Errorf("cuda:%d: synchronize: %w", p.d.c.Ordinal(), err), p.free())
		}
	}
	return p.free()
}
