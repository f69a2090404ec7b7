//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/vidscreen/vidscreen/decode/nv12"
)

// LoadNV12 implements DevicePrep: one prep_nv12 launch per picture on the
// Prep's stream, writing its packed RGB into its batch slot, so the Run
// queued after reads it and the pictures never leave the device. The
// pictures must stay unchanged until Sync returns.
func (p *gpuPrep) LoadNV12(slot int, frames []nv12.Frame) error {
	if err := checkNV12(p.plan, p.batch, slot, frames); err != nil {
		return err
	}
	if len(frames) == 0 {
		return nil
	}
	unbind, err := p.d.g.bind()
	if err != nil {
		return err
	}
	defer unbind()
	width := int64(p.plan.SrcW)
	for i, f := range frames {
		luma, chroma := cu.DevicePtr(f.Luma), cu.DevicePtr(f.Chroma)
		lp, cp := int64(f.LumaPitch), int64(f.ChromaPitch)
		m := f.Matrix
		cy, oy, crv, cgu, cgv, cbu := int64(m.CY), int64(m.OY), int64(m.CRV), int64(m.CGU), int64(m.CGV), int64(m.CBU)
		dst := p.frames + cu.DevicePtr((slot+i)*p.shape.frameBytes)
		if err := p.d.nv12.Launch((p.plan.SrcW+prepBlock-1)/prepBlock, p.plan.SrcH, 1, prepBlock, 1, 1, 0, p.stream, []unsafe.Pointer{
			unsafe.Pointer(&luma), unsafe.Pointer(&lp), unsafe.Pointer(&chroma), unsafe.Pointer(&cp), unsafe.Pointer(&width),
			unsafe.Pointer(&cy), unsafe.Pointer(&oy), unsafe.Pointer(&crv), unsafe.Pointer(&cgu), unsafe.Pointer(&cgv), unsafe.Pointer(&cbu),
			unsafe.Pointer(&dst)}); err != nil {
			return fmt.Errorf("cuda:%d: prep_nv12 frame %d: %w", p.d.g.ordinal, i, err)
		}
	}
	return nil
}

// UploadBytes copies b into a new cuMemAlloc buffer in g's (primary)
// context and returns its device address and the function that frees it:
// for NV12 pictures put where NVDEC would leave them, by the device check,
// which has no decoder on the GPU machine. The copy is synchronous; free
// may be called more than once.
func (g *GPU) UploadBytes(b []byte) (_ uintptr, free func() error, err error) {
	if len(b) == 0 {
		return 0, nil, fmt.Errorf("cuda:%d: upload of 0 bytes", g.ordinal)
	}
	unbind, err := g.bind()
	if err != nil {
		return 0, nil, err
	}
	defer unbind()
	ptr, err := memAlloc(int64(len(b)))
	if err != nil {
		return 0, nil, fmt.Errorf("cuda:%d: %w", g.ordinal, err)
	}
	freed := false
	free = func() error { // once: a second call does nothing
		if freed {
			return nil
		}
		freed = true
		unbind, err := g.bind()
		if err != nil {
			return err
		}
		defer unbind()
		if err := cu.MemFree(ptr); err != nil {
			return fmt.Errorf("cuda:%d: free %d bytes: %w", g.ordinal, len(b), err)
		}
		return nil
	}
	if err := cu.MemcpyHtoD(ptr, unsafe.Pointer(&b[0]), int64(len(b))); err != nil {
		return 0, nil, errors.Join(fmt.Errorf("cuda:%d: copy %d bytes: %w", g.ordinal, len(b), err), free())
	}
	return uintptr(ptr), free, nil
}

// SharePrimaryWithFFmpeg readies device ordinal's primary context for
// FFmpeg's NVDEC (decode.NewGPU asks hwcontext_cuda for primary_ctx=1),
// so its pictures land in the context the kernels and ONNX Runtime use:
// hwcontext_cuda refuses a primary context already active with flags
// other than CU_CTX_SCHED_BLOCKING_SYNC, and Open and the CUDA runtime
// retain it with the default (CU_CTX_SCHED_AUTO). It sets those flags
// (cuDevicePrimaryCtxSetFlags_v2 changes them on an active context too),
// whichever opened first; waits on the GPU then block their thread rather
// than spin, which costs microseconds a wait and frees the core. It is
// called only where video is decoded on the device.
func SharePrimaryWithFFmpeg(ordinal int) error {
	if err := initError(); err != nil {
		return fmt.Errorf("cuda:%d: %w", ordinal, err)
	}
	dev, err := cu.GetDevice(ordinal)
	if err != nil {
		return fmt.Errorf("cuda:%d: %w", ordinal, err)
	}
	flags, _, err := dev.PrimaryCtxState()
	if err != nil {
		return fmt.Errorf("cuda:%d: primary context state: %w", ordinal, err)
	}
	if flags == cu.SchedBlockingSync {
		return nil
	}
	if err := dev.SetPrimaryCtxFlags(cu.SchedBlockingSync); err != nil {
		return fmt.Errorf("cuda:%d: primary context flags %#x to CU_CTX_SCHED_BLOCKING_SYNC: %w", ordinal, uint(flags), err)
	}
	return nil
}
