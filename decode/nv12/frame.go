package nv12

// A Frame is a decoded picture in GPU memory as NVDEC leaves it (and
// FFmpeg's scale_cuda): a luma plane of Height rows and an interleaved
// U,V plane of (Height+1)/2 rows, each at its own pitch. The planes must
// be in the device's primary context (decode.NewSharedGPU opens FFmpeg's
// CUDA device there) and stay unchanged until the consumer's work on them
// is synchronised (kernels/cuda: the Prep's Sync).
type Frame struct {
	Luma, Chroma           uintptr // device addresses
	LumaPitch, ChromaPitch int     // bytes per row
	Width, Height          int
	Matrix                 Matrix
}
