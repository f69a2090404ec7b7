//go:build cuda

package decode

import "github.com/vidscreen/vidscreen/gpu/cudactx"

// readyPrimary sets device index's primary context to the flags
// hwcontext_cuda accepts, so FFmpeg joins the context the cuda build's
// kernels and ONNX Runtime may have made active first.
func readyPrimary(index int) error { return cudactx.SharePrimaryWithFFmpeg(index) }
