//go:build cuda

package cudactx

import (
	"fmt"

	"gorgonia.org/cu"
)

// SharePrimaryWithFFmpeg readies device ordinal's primary context for
// FFmpeg's NVDEC (decode.NewGPU asks hwcontext_cuda for primary_ctx=1),
// so its pictures land in the context the kernels and ONNX Runtime use:
// hwcontext_cuda refuses a primary context already active with flags
// other than CU_CTX_SCHED_BLOCKING_SYNC, and Retain and the CUDA runtime
// retain it with the default (CU_CTX_SCHED_AUTO). It sets those flags
// (cuDevicePrimaryCtxSetFlags_v2 changes them on an active context too),
// whichever opened first; waits on the GPU then block their thread rather
// than spin, which costs microseconds a wait and frees the core. It is
// called only where video is decoded on the device.
func SharePrimaryWithFFmpeg(ordinal int) error {
	if err := InitError(); err != nil {
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
