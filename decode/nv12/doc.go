// Package nv12 describes a decoded picture as NVDEC leaves it in GPU
// memory: two planes, luma and interleaved chroma, and the YUV to RGB
// matrix of its colour space and range. It is what decode hands over
// (decode.Decoder.FramesOnDevice) and what kernels/cuda's prep_nv12 reads.
//
// It is pure Go with no cgo on purpose: the type belongs to the decoder
// side, and kernels/cuda, which the device-check bundle builds with only
// libcuda and the C library, imports it without pulling FFmpeg in.
package nv12
