// Package cuda runs the kernels' threshold join and top-k searches on an
// NVIDIA GPU, behind the interfaces package kernels defines (Joiner,
// NeighbourSearcher), with the CPU kernels' results: the same pairs in the
// same order, the same neighbours.
//
// Data moves like this. Backend uploads both matrices once, then each of
// its workers (one CUDA stream each) takes a block of rows at a time and,
// for each block of columns, asks the device for the product tile (cuBLAS's
// Sgemm when a libcublas can be loaded at run time, else the package's own
// GEMM kernel), the k-th largest entry of each row (top-k only), and the
// entries at or above a floor per row, which are all that come back to the
// host. The floor is the threshold (or the running k-th best) lowered by
// twice the worst rounding error of the device's arithmetic, so no true
// pair is lost; each candidate is then decided by kernels.Dot64 in float64,
// exactly as the CPU join decides, so no false pair is kept.
//
// The device side sits behind the Device and Worker interfaces. The GPU's
// (Open, in files built with the cuda build tag) uses gorgonia.org/cu, the
// CUDA driver API, and the kernels of kernels.cu, compiled to PTX (make ptx)
// and embedded; Host implements the same interfaces on the CPU so that
// everything but the device code is tested on any machine.
//
// The device's primary context, its memory helpers and the binary's cuInit
// stand-in come from gpu/cudactx, which models/imageprep/gpuprep (the image
// preprocessing kernels) shares; GPU.Context hands it to such code.
//
// Without the cuda tag the package has Backend and Host only and needs no
// CUDA headers or libraries.
package cuda
