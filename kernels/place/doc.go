// Package place decides where the kernels' searches and joins run: on the
// GPU a --device value names, through the kernels of kernels/cuda, or on
// the CPU. Every backend finds the CPU's pairs and neighbours, so placing
// changes only the time a command takes, never its outputs; where the GPU
// cannot be used (bin/vidscreen has no GPU kernels, or the device does not
// open) the work falls back to the CPU after one line saying why.
//
// The GPU's kernels link libcuda only in the cuda build (-tags cuda); the
// default build opens no device and links no CUDA library.
package place
