//go:build cuda

package main

import (
	"errors"
	"fmt"
	"os"

	"gorgonia.org/cu"

	"github.com/vidscreen/vidscreen/gpu/cudactx"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/models/imageprep/gpuprep"
)

// openGPU opens cuda:0 as c says. VIDSCREEN_CUBLAS_LIB names a cuBLAS to
// try first (the GPU machine's is in its Python environment, off the
// loader's path).
func openGPU(c gpuConfig) (cuda.Device, string, func(), error) {
	opt := cuda.OpenOptions{NoCUBLAS: c.noCUBLAS}
	if p := os.Getenv("VIDSCREEN_CUBLAS_LIB"); p != "" {
		opt.CUBLAS = append([]string{p}, cuda.DefaultCUBLAS...)
	}
	opt.Precision = c.prec
	g, err := cuda.Open(0, opt)
	if err != nil {
		return nil, "", nil, err
	}
	if !c.noCUBLAS && g.CUBLASMissing() != "" {
		return nil, "", nil, errors.Join(fmt.Errorf("no cuBLAS: %s", g.CUBLASMissing()), g.Close())
	}
	return gpuDevice{g}, g.Name(), func() { _ = g.Close() }, nil
}

// gpuDevice is kernels/cuda's GPU with the preprocessing kernels of
// models/imageprep/gpuprep opened on its context, and uploads there.
type gpuDevice struct{ *cuda.GPU }

// OpenPrep loads the preprocessing kernels into the GPU's context.
func (g gpuDevice) OpenPrep() (gpuprep.PrepDevice, error) { return gpuprep.OpenGPU(g.Context()) }

// UploadBytes copies b into the GPU's memory (cudactx.Context.UploadBytes).
func (g gpuDevice) UploadBytes(b []byte) (uintptr, func() error, error) {
	return g.Context().UploadBytes(b)
}

// The GPU holds NV12 pictures for the prep_nv12 check.
var _ nv12Device = gpuDevice{}

// sharePrimary readies cuda:0's primary context for FFmpeg as
// decode.NewGPU does in the cuda build, and reads back that the flags took
// on the context the checks hold active.
func sharePrimary() error {
	if err := cudactx.SharePrimaryWithFFmpeg(0); err != nil {
		return err
	}
	dev, err := cu.GetDevice(0)
	if err != nil {
		return fmt.Errorf("cuda:0: %w", err)
	}
	flags, active, err := dev.PrimaryCtxState()
	if err != nil {
		return fmt.Errorf("cuda:0: primary context state: %w", err)
	}
	if flags != cu.SchedBlockingSync || active != 1 {
		return fmt.Errorf("cuda:0: primary context flags %#x, active %d after SharePrimaryWithFFmpeg; want %#x and active", uint(flags), active, uint(cu.SchedBlockingSync))
	}
	return nil
}
