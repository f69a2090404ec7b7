//go:build cuda

package gpuprep

import (
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
	unbind, err := p.d.c.Bind()
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
			return fmt.Errorf("cuda:%d: prep_nv12 frame %d: %w", p.d.c.Ordinal(), i, err)
		}
	}
	return nil
}
