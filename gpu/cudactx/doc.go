// Package cudactx holds one CUDA device's primary context for the code that
// runs kernels on it: the join and Vendi kernels of kernels/cuda and the
// image preprocessing of models/imageprep/gpuprep. It is the thin layer over
// the CUDA driver API (gorgonia.org/cu) those packages share, so that
// neither needs the other.
//
// A user retains a device's context once (Retain), binds it to the calling
// goroutine's thread around each run of driver calls (Bind), allocates
// device memory with MemAlloc and AllocBufs, and releases the context last
// (Close, or Release from an owner that wraps its own message). The context
// is the primary one, shared with ONNX Runtime's CUDA provider and with
// FFmpeg's NVDEC (SharePrimaryWithFFmpeg readies it for the latter), so a
// device address made by one is valid for the others.
//
// The package also owns the binary's stand-in for cuInit (cuinit_cuda.go):
// gorgonia.org/cu calls cuInit when the program starts and exits when it
// fails; the stand-in keeps the driver's answer for InitError, so a cuda
// build still starts on a machine without a usable GPU and falls back to
// the CPU.
//
// Everything but this comment is built with the cuda build tag only;
// without it the package is empty and needs no CUDA headers or libraries.
package cudactx
