package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vidscreen/vidscreen/decode/nv12"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// An nv12Device can hold NV12 pictures and convert them on the device:
// kernels/cuda's GPU (UploadBytes puts a picture where NVDEC would leave
// it; its Preps are DevicePreps). Host is not one, its Preps reading host
// memory only.
type nv12Device interface {
	Name() string
	prepOpener
	UploadBytes(b []byte) (uintptr, func() error, error)
}

// nv12Checks runs the prep_nv12 cases on dev (nil: no GPU ran; the GPU
// fields stay null and the Go port through Host's kernels is checked
// instead), the rate at batch pictures (prepBatch; tests use fewer).
func nv12Checks(ctx context.Context, ref *Reference, dev cuda.Device, batch int) ([]CheckResult, error) {
	var nd nv12Device
	why := ""
	if dev != nil {
		var ok bool
		if nd, ok = dev.(nv12Device); !ok {
			why = fmt.Sprintf("device %s cannot hold NV12 pictures (no UploadBytes)", dev.Name())
		}
	}
	return nv12Run(ctx, ref, nd, why, batch, sharePrimary)
}

// nv12Run is nv12Checks on an nv12Device (nil: none, why saying why where
// there was a device); share readies the device's primary context for
// FFmpeg, as decode.NewGPU does (sharePrimary), for the last row.
func nv12Run(ctx context.Context, ref *Reference, dev nv12Device, why string, batch int, share func() error) ([]CheckResult, error) {
	p, err := nv12Processor()
	if err != nil {
		return nil, err
	}
	var out []CheckResult
	for c, k := range nv12Cases {
		rc, ok := ref.check(k.name)
		if !ok || rc.PrepFigures == nil {
			return nil, fmt.Errorf("reference has no check %s: regenerate the reference with this binary", k.name)
		}
		ss := nv12Surfaces(ref.Seed, c)
		if d := digestSurfaces(ss); rc.FramesSHA256 != d {
			return nil, fmt.Errorf("%s: the seeded NV12 pictures differ from the reference's (%s, here %s): regenerate the reference with this binary", k.name, rc.FramesSHA256, d)
		}
		bytesPer, err := nv12Bytes(p, k.w, k.h)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.name, err)
		}
		res := CheckResult{Name: k.name, What: nv12What(c, p), Backend: "prep_nv12 and the preprocessing kernels (preprocess.cu)",
			CPUCount: rc.Count, CPUSHA256: rc.SHA256, CPUSeconds: rc.Seconds, Target: fmt.Sprintf(">= %.0f frames/s", prepTarget),
			Ceiling: fmt.Sprintf("H200 HBM 4.8 TB/s at ~%.1f MB a picture: ~%.0f frames/s; CPU here (NV12ToRGB and imageprep, %s) %.0f frames/s",
				bytesPer/1e6, prepHBMBytesPer/bytesPer, ref.CPU, rc.CPUFramesPS),
			Error: why, PrepFigures: &PrepFigures{CPUFramesPS: rc.CPUFramesPS}}
		want, frames, _, err := nv12Expected(ctx, p, c, ss)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.name, err)
		}
		if dev == nil {
			// The reference's tensor again, through Host's port of the two
			// kernels rather than imageprep.
			eq, err := prepEqual(ctx, gpuprep.Host{}, p, frames, rc.SHA256)
			if err != nil {
				return nil, fmt.Errorf("%s on the host port: %w", k.name, err)
			}
			res.HostPortEqual = &eq
			out = append(out, res)
			continue
		}
		if err := nv12GPU(ctx, dev, c, ss, want, batch, &res); err != nil {
			res.Error = err.Error()
		}
		out = append(out, res)
	}
	r, err := nv12Shared(ctx, ref, dev, batch, share, out[0])
	if err != nil {
		return nil, err
	}
	return append(out, r), nil
}

// nv12Shared is the row prep_nv12/shared_primary, run last since it
// changes the device's primary context for the rest of the process: share
// sets the active context's flags to the ones FFmpeg's hwcontext_cuda
// accepts (what decode.NewGPU does in the cuda build, so NVDEC can join
// the context the kernels opened), and the first case runs again under
// them. Equal says the flags took and the tensor is still the
// reference's; the rate beside first's shows what blocking waits cost.
// With no device (nil) the row is there with its GPU fields null.
func nv12Shared(ctx context.Context, ref *Reference, dev nv12Device, batch int, share func() error, first CheckResult) (CheckResult, error) {
	res := first
	res.Name = "prep_nv12/shared_primary"
	res.What = "the primary context, active, set to CU_CTX_SCHED_BLOCKING_SYNC as decode.NewGPU sets it for FFmpeg (cuda.SharePrimaryWithFFmpeg), then " + first.Name + " again"
	res.Error, res.PrepFigures = "", &PrepFigures{CPUFramesPS: first.CPUFramesPS}
	res.GPUCount, res.GPUSHA256, res.Equal, res.GPUSeconds = nil, nil, nil, nil
	if dev == nil {
		return res, nil
	}
	if err := share(); err != nil {
		res.Error = err.Error()
		f := false
		res.Equal = &f
		return res, nil
	}
	p, err := nv12Processor()
	if err != nil {
		return res, err
	}
	ss := nv12Surfaces(ref.Seed, 0)
	want, _, _, err := nv12Expected(ctx, p, 0, ss)
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.Name, err)
	}
	if err := nv12GPU(ctx, dev, 0, ss, want, batch, &res); err != nil {
		res.Error = err.Error()
	}
	return res, nil
}

// nv12GPU fills res's GPU fields for case c: the pictures uploaded as
// NVDEC surfaces, converted and preprocessed on the device, the tensor
// against the reference's digest (and against want, computed here, for
// the size of any difference); then the rate at batch pictures already in
// device memory, prep_nv12 and both passes, as the frame path runs them.
func nv12GPU(ctx context.Context, dev nv12Device, c int, ss []nv12Surface, want []float32, batch int, res *CheckResult) (err error) {
	k := nv12Cases[c]
	p, err := nv12Processor()
	if err != nil {
		return err
	}
	pd, err := dev.OpenPrep()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, pd.Close()) }()
	m := nv12.MatrixFor(k.cs, false)
	pics := make([]nv12.Frame, len(ss))
	var frees []func() error
	// After the Prep's Close (deferred below, so run first), which waits
	// for the work that reads the pictures.
	defer func() {
		for _, free := range frees {
			err = errors.Join(err, free())
		}
	}()
	for i, s := range ss {
		ptr, free, uerr := dev.UploadBytes(s.buf)
		if uerr != nil {
			return fmt.Errorf("upload picture %d: %w", i, uerr)
		}
		frees = append(frees, free)
		pics[i] = nv12.Frame{Luma: ptr, Chroma: ptr + uintptr(s.r*s.pitch), LumaPitch: s.pitch, ChromaPitch: s.pitch, Width: s.w, Height: s.h, Matrix: m}
	}
	plan, err := p.Plan(k.w, k.h)
	if err != nil {
		return err
	}
	prep, err := pd.NewPrep(plan, max(batch, len(pics)))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, prep.Close()) }()
	dp, ok := prep.(gpuprep.DevicePrep)
	if !ok {
		return fmt.Errorf("%s's Preps do not take NV12 pictures (not DevicePreps)", dev.Name())
	}
	// The first picture alone, then the rest behind it, as the decoder
	// hands them over.
	if err := errors.Join(dp.LoadNV12(0, pics[:1]), dp.LoadNV12(1, pics[1:]), dp.Run(ctx, len(pics))); err != nil {
		return err
	}
	got := make([]float32, len(pics)*p.FrameLen())
	if err := dp.Output(got, len(pics)); err != nil {
		return err
	}
	cnt, dig := int64(len(got)), digestFloats(got)
	eq := dig == res.CPUSHA256
	var d float64
	for i := range got {
		d = math.Max(d, math.Abs(float64(got[i])-float64(want[i])))
	}
	res.GPUCount, res.GPUSHA256, res.Equal, res.MaxAbsDiff = &cnt, &dig, &eq, &d

	slots := make([]nv12.Frame, batch)
	for i := range slots {
		slots[i] = pics[i%len(pics)]
	}
	// Warm: the first launches of a batch this size.
	if err := errors.Join(dp.LoadNV12(0, slots), dp.Run(ctx, batch), dp.Sync()); err != nil {
		return err
	}
	n := 0
	start := time.Now()
	for n < prepMinBatches || time.Since(start).Seconds() < prepMinSeconds {
		if err := errors.Join(dp.LoadNV12(0, slots), dp.Run(ctx, batch)); err != nil {
			return err
		}
		n++
		if n%prepMinBatches == 0 {
			if err := dp.Sync(); err != nil {
				return err
			}
		}
	}
	if err := dp.Sync(); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fps := float64(n*batch) / secs
	res.GPUSeconds, res.GPUFramesPS = &secs, &fps
	return nil
}
