package decode

// Which CUDA context FFmpeg decodes in. hwcontext_cuda makes a context of
// its own unless asked for the device's primary context (its primary_ctx
// option, ffmpeg-utils(1): "If set to 1, uses the primary device context
// instead of creating a new one"). Only pictures in the primary context
// can be read by the GPU kernels (kernels/cuda retains the primary
// context) and ONNX Runtime's CUDA provider (the CUDA runtime uses it), so
// every GPU asks for it first. hwcontext_cuda refuses it with ENOTSUP
// ("Primary context already active with incompatible flags") when the
// primary context is already active with flags other than the
// CU_CTX_SCHED_BLOCKING_SYNC it wants, as it is when the kernels or ONNX
// Runtime retained it first. The cuda build sets those flags first
// (readyPrimary: gpu/cudactx's SharePrimaryWithFFmpeg); where the
// primary context is still refused, NewGPU decodes in a context of its
// own, which still decodes and resizes on the GPU, and says why the frame
// path on the device cannot read its pictures.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/asticode/go-astiav"

	"github.com/vidscreen/vidscreen/gpu"
)

// primaryCtxOptions are hwcontext_cuda's options for a device on the
// primary context, as ffmpeg's -init_hw_device cuda:N,primary_ctx=1.
func primaryCtxOptions() map[string]string { return map[string]string{"primary_ctx": "1"} }

// cudaCreate makes FFmpeg's CUDA device for device (an index) with the
// hwcontext options opts (nil: none). ffmpegCUDA is the real one; tests
// pass fakes to follow the fallback without a GPU.
type cudaCreate func(device string, opts map[string]string) (*astiav.HardwareDeviceContext, error)

// ffmpegCUDA is av_hwdevice_ctx_create for AV_HWDEVICE_TYPE_CUDA, once
// the driver has answered cuInit: FFmpeg is never asked where the driver
// refuses, because hwcontext_cuda's report of that refusal reads strings
// the driver may not have written (gpu.InitCUDA), and with the toolkit's
// stub driver it crashed the process.
func ffmpegCUDA(device string, opts map[string]string) (*astiav.HardwareDeviceContext, error) {
	if err := gpu.InitCUDA(gpu.DefaultCUDALibrary); err != nil {
		return nil, err
	}
	var d *astiav.Dictionary
	if len(opts) > 0 {
		var err error
		if d, err = cudaDict(opts); err != nil {
			return nil, err
		}
		defer d.Free()
	}
	return astiav.CreateHardwareDeviceContext(astiav.HardwareDeviceTypeCUDA, device, d)
}

// cudaDict is opts as the AVDictionary hwcontext_cuda reads, keys in
// order so the dictionary is the same on every call.
func cudaDict(opts map[string]string) (*astiav.Dictionary, error) {
	d := astiav.NewDictionary()
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if err := d.Set(k, opts[k], 0); err != nil {
			d.Free()
			return nil, fmt.Errorf("hwcontext option %s=%s: %w", k, opts[k], err)
		}
	}
	return d, nil
}

// openGPU opens CUDA device index through create on its primary context,
// readied by ready (readyPrimary); where that is refused and ownCtx
// allows, on a context of FFmpeg's own, with the refusal kept as the GPU's
// SharedErr. A GPU that opened neither way has Err set.
func openGPU(index int, create cudaCreate, ready func(int) error, ownCtx bool) *GPU {
	g := &GPU{Index: index}
	dev := fmt.Sprint(index)
	rerr := ready(index)
	hdc, perr := create(dev, primaryCtxOptions())
	if perr == nil {
		g.hdc = hdc
		return g
	}
	if rerr != nil {
		perr = fmt.Errorf("%w; readying its flags failed: %v", perr, rerr)
	}
	if !ownCtx {
		g.err = fmt.Errorf("CUDA device %d (primary context): %w (is the NVIDIA driver installed and libcuda.so.1 loadable?)", index, perr)
		return g
	}
	hdc, err := create(dev, nil)
	if err != nil {
		g.err = fmt.Errorf("CUDA device %d: %w (is the NVIDIA driver installed and libcuda.so.1 loadable?)", index, err)
		return g
	}
	g.hdc = hdc
	g.shared = fmt.Errorf("FFmpeg decodes on CUDA device %d in a context of its own, which the GPU kernels and ONNX Runtime cannot read: the primary context was refused (%w; hwcontext_cuda refuses a primary context already active with flags other than CU_CTX_SCHED_BLOCKING_SYNC, which the cuda build sets first)", index, perr)
	return g
}

// SharedErr is nil when FFmpeg decodes on the device's primary context,
// where the GPU kernels and ONNX Runtime read its pictures (the frame path
// on the device); otherwise it says why not. It is nil too when the
// device did not open (see Err).
func (g *GPU) SharedErr() error { return g.shared }
