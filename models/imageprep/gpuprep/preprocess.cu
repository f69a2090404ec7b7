// Frame preprocessing kernels of vidscreen's GPU backend (package
// kernels/cuda, preprocess_cuda.go): decoded RGB frames (uint8, HWC) to an
// image tower's input tensor (float32 NCHW), resized, centre-cropped and
// normalised exactly as models/imageprep does on the CPU.
//
// A module of its own (preprocess.ptx, made by `make ptx` with the same
// flags as kernels.ptx and embedded), so the frame path and the join
// kernels change independently.
//
// The host builds an imageprep.Plan per frame size: Pillow's fixed-point
// resampling weights (22 fractional bits) of both separable passes,
// restricted to the pixels the crop keeps, and each channel's table of
// rescaled and normalised levels. The kernels only apply it: integer sums
// are exact whatever their order, the 8-bit rounding between the passes is
// Pillow's, and the last step is a table lookup, so the output equals the
// CPU's bit for bit. preprocess_host.go ports these two loops to Go
// (Host's PrepDevice) and is tested against imageprep; keep them in step.
//
// Layouts (n frames of a batch, blockIdx.z = frame):
//   frames  n x srcH x (3 srcW) bytes, rows packed
//   tmp     n x trows x (3 cols) bytes: the horizontal pass's output for
//           source rows y0 .. y0+trows-1 and crop columns j0 .. j0+cols-1
//   out     n x 3 x outH x outW float32
// Every scalar parameter is 64 bits wide (long long): gorgonia.org/cu's
// Launch copies eight bytes from each argument's address.

#include <stdint.h>

#define PREP_BITS 22
#define PREP_HALF (1 << (PREP_BITS - 1))

extern "C" {

// clip8 turns a fixed-point sum that started at one half into a level
// (imageprep's clip8, Pillow's clip8).
__device__ __forceinline__ uint8_t prepClip8(int v) {
    if (v >= (255 << PREP_BITS)) {
        return 255;
    }
    if (v <= 0) {
        return 0;
    }
    return (uint8_t)(v >> PREP_BITS);
}

// prep_horizontal: one thread per (frame, tmp row r, crop column k). It
// sums hn[k] source pixels from column hstart[k] of source row y0 + r with
// the weights hw[k*taps ...]. Neighbouring threads read overlapping
// windows of one row, which the L1 cache serves; DRAM reads each source
// byte about once.
__global__ void __launch_bounds__(128) prep_horizontal(
    const uint8_t* __restrict__ frames, long long frameBytes, long long srcStride, long long y0,
    const int* __restrict__ hstart, const int* __restrict__ hn, const int* __restrict__ hw,
    long long taps, long long cols, uint8_t* __restrict__ tmp)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (int)cols) {
        return;
    }
    const int r = blockIdx.y;
    const long long f = blockIdx.z;
    const uint8_t* src = frames + f * frameBytes + (y0 + r) * srcStride + 3LL * __ldg(&hstart[k]);
    const int* w = hw + (long long)k * taps;
    const int n = __ldg(&hn[k]);
    int s0 = PREP_HALF, s1 = PREP_HALF, s2 = PREP_HALF;
    for (int t = 0; t < n; t++) {
        const int wt = __ldg(&w[t]);
        s0 += (int)__ldg(&src[3 * t]) * wt;
        s1 += (int)__ldg(&src[3 * t + 1]) * wt;
        s2 += (int)__ldg(&src[3 * t + 2]) * wt;
    }
    uint8_t* d = tmp + (f * gridDim.y + r) * 3LL * cols + 3LL * k;
    d[0] = prepClip8(s0);
    d[1] = prepClip8(s1);
    d[2] = prepClip8(s2);
}

// prep_vertical: one thread per (frame, output row i, output column j).
// Inside the region the resize computes (rows i0 .. i0+orows-1, columns
// j0 .. j0+cols-1) it sums vn[k] rows of tmp from row vstart[k], k = i-i0,
// with the weights vw[k*taps ...], rounds to a level and looks up each
// channel's value; outside it writes the padding, level 0's value, as
// transformers' centre crop pads. Warps write consecutive columns of one
// plane row: coalesced stores.
__global__ void __launch_bounds__(128) prep_vertical(
    const uint8_t* __restrict__ tmp, long long trows, long long cols, long long orows,
    const int* __restrict__ vstart, const int* __restrict__ vn, const int* __restrict__ vw,
    long long taps, long long i0, long long j0, long long outH, long long outW,
    const float* __restrict__ lut, float* __restrict__ out)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= (int)outW) {
        return;
    }
    const int i = blockIdx.y;
    const long long f = blockIdx.z;
    const long long plane = outH * outW;
    float* o = out + f * 3 * plane + (long long)i * outW + j;
    const int k = i - (int)i0;
    const int x = j - (int)j0;
    if (k < 0 || k >= (int)orows || x < 0 || x >= (int)cols) {
        o[0] = __ldg(&lut[0]);
        o[plane] = __ldg(&lut[256]);
        o[2 * plane] = __ldg(&lut[512]);
        return;
    }
    const long long rowBytes = 3 * cols;
    const uint8_t* src = tmp + f * trows * rowBytes + (long long)__ldg(&vstart[k]) * rowBytes + 3LL * x;
    const int* w = vw + (long long)k * taps;
    const int n = __ldg(&vn[k]);
    int s0 = PREP_HALF, s1 = PREP_HALF, s2 = PREP_HALF;
    for (int t = 0; t < n; t++) {
        const int wt = __ldg(&w[t]);
        const uint8_t* p = src + t * rowBytes;
        s0 += (int)__ldg(&p[0]) * wt;
        s1 += (int)__ldg(&p[1]) * wt;
        s2 += (int)__ldg(&p[2]) * wt;
    }
    o[0] = __ldg(&lut[prepClip8(s0)]);
    o[plane] = __ldg(&lut[256 + prepClip8(s1)]);
    o[2 * plane] = __ldg(&lut[512 + prepClip8(s2)]);
}

// nv12Clip turns a 16.16 fixed-point colour sum into a level, rounding to
// nearest (preprocess_nv12.go's nv12Clip).
__device__ __forceinline__ uint8_t nv12Clip(int s) {
    s += 1 << 15;
    if (s <= 0) {
        return 0;
    }
    s >>= 16;
    return s > 255 ? 255 : (uint8_t)s;
}

// prep_nv12: one thread per pixel (row blockIdx.y, column x) of one NV12
// picture in device memory (NVDEC's surface, or scale_cuda's), written as
// packed RGB24 into its batch slot of frames, the input of the two passes
// below; the picture never visits the host. The colour matrix comes in
// 16.16 fixed point (preprocess_nv12.go, NV12Matrix):
//   R = cy (Y - oy) + crv V',  G = cy (Y - oy) - cgu U' - cgv V',
//   B = cy (Y - oy) + cbu U',  with U' = U - 128, V' = V - 128,
// each rounded and clipped to 8 bits; each chroma sample covers 2 x 2
// pixels (nearest). Warps read consecutive luma bytes: coalesced.
__global__ void __launch_bounds__(128) prep_nv12(
    const uint8_t* __restrict__ luma, long long lumaPitch,
    const uint8_t* __restrict__ chroma, long long chromaPitch, long long width,
    long long cy, long long oy, long long crv, long long cgu, long long cgv, long long cbu,
    uint8_t* __restrict__ dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= (int)width) {
        return;
    }
    const long long y = blockIdx.y;
    const int l = ((int)__ldg(&luma[y * lumaPitch + x]) - (int)oy) * (int)cy;
    const uint8_t* c = chroma + (y >> 1) * chromaPitch + (x & ~1);
    const int u = (int)__ldg(&c[0]) - 128;
    const int v = (int)__ldg(&c[1]) - 128;
    uint8_t* d = dst + (y * width + x) * 3;
    d[0] = nv12Clip(l + (int)crv * v);
    d[1] = nv12Clip(l - (int)cgu * u - (int)cgv * v);
    d[2] = nv12Clip(l + (int)cbu * u);
}

}  // extern "C"
