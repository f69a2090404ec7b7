//go:build !cuda

package decode

// readyPrimary does nothing in a build without the GPU kernels: it links
// no CUDA library, and nothing in it reads NVDEC's pictures on the device,
// so a primary context ONNX Runtime made active first only sends FFmpeg
// to a context of its own.
func readyPrimary(int) error { return nil }
