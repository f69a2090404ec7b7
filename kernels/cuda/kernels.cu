// Device kernels of vidscreen's GPU backend (package kernels/cuda).
//
// Compiled to PTX by `make ptx` (nvcc 11.8, -arch=compute_80, so the driver
// JIT-compiles it for sm_80, sm_90 and later) and embedded in the Go binary;
// kernels.ptx is generated from this file and never edited by hand.
//
// Layout everywhere: row-major float32, a tile C (rows x cols, leading
// dimension ldc) = A[r0:r0+rows] . B[c0:c0+cols]^T, A and B of d columns.
// Global row i = r0 + local row, global column j = c0 + local column.
//
// Every scalar parameter is 64 bits wide (long long): gorgonia.org/cu's
// Launch copies eight bytes from each argument's address.
//
// Masks select the part of a tile that counts (the same rules as the CPU
// kernels in package kernels):
//   0 every entry
//   1 j > i only (a self-join: each unordered pair once)
//   2 j < i only (prequential top-k: an item sees only earlier items)

#include <stdint.h>

extern "C" {

__device__ __forceinline__ bool inMask(int mask, long long i, long long j) {
    return mask == 0 || (mask == 1 && j > i) || (mask == 2 && j < i);
}

// Order-preserving map from float to uint32: a > b as floats (not NaN)
// iff key(a) > key(b). NaN maps to 0, below every number, so it is never
// selected (the CPU top-k skips NaN products the same way).
__device__ __forceinline__ uint32_t floatKey(float v) {
    if (v != v) {
        return 0u;
    }
    uint32_t u = __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

__device__ __forceinline__ float keyFloat(uint32_t k) {
    uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    return __uint_as_float(u);
}

// sgemm_nt: C = A . B^T in float32, the fallback when no cuBLAS library
// can be loaded. Each 256-thread block computes a 64 x 64 tile of C from
// 64 x 16 slices of A and B staged in shared memory; each thread owns a
// 4 x 4 patch in registers. Out-of-range rows and columns read zeros and
// are not written, so any shape works.
#define GEMM_BM 64
#define GEMM_BN 64
#define GEMM_BK 16

// tileFMA adds to a thread's 4 x 4 patch acc the products of the GEMM_BK
// k of the slices staged in shared memory: rows ty + 16a of As times
// columns tx + 16b of Bs, the inner step both fallback GEMMs share (they
// differ only in how they stage B).
__device__ __forceinline__ void tileFMA(
    const float (*As)[GEMM_BM + 4], const float (*Bs)[GEMM_BN + 4], int tx, int ty, float acc[4][4])
{
#pragma unroll
    for (int k = 0; k < GEMM_BK; k++) {
        float av[4], bv[4];
#pragma unroll
        for (int a = 0; a < 4; a++)
            av[a] = As[k][ty + 16 * a];
#pragma unroll
        for (int b = 0; b < 4; b++)
            bv[b] = Bs[k][tx + 16 * b];
#pragma unroll
        for (int a = 0; a < 4; a++)
#pragma unroll
            for (int b = 0; b < 4; b++)
                acc[a][b] = fmaf(av[a], bv[b], acc[a][b]);
    }
}

// tileStore writes a thread's patch, rows r0 + 16a and columns c0 + 16b
// of C (leading dimension ldc), leaving out those past rows and cols.
__device__ __forceinline__ void tileStore(
    float* __restrict__ C, long long ldc, int rows, int cols, int r0, int c0, const float acc[4][4])
{
#pragma unroll
    for (int a = 0; a < 4; a++) {
        int r = r0 + 16 * a;
        if (r >= rows)
            continue;
#pragma unroll
        for (int b = 0; b < 4; b++) {
            int c = c0 + 16 * b;
            if (c < cols)
                C[(size_t)r * ldc + c] = acc[a][b];
        }
    }
}

__global__ void __launch_bounds__(256) sgemm_nt(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
    long long rows64, long long cols64, long long d64, long long ldc)
{
    const int rows = (int)rows64, cols = (int)cols64, d = (int)d64;
    __shared__ float As[GEMM_BK][GEMM_BM + 4];
    __shared__ float Bs[GEMM_BK][GEMM_BN + 4];
    const int tx = threadIdx.x % 16;
    const int ty = threadIdx.x / 16;
    const int rowBase = blockIdx.y * GEMM_BM;
    const int colBase = blockIdx.x * GEMM_BN;
    float acc[4][4];
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int b = 0; b < 4; b++)
            acc[a][b] = 0.0f;
    // Loading: 64 rows x 16 k = 1024 floats per operand, 4 per thread.
    const int lr = threadIdx.x / 4;        // 0..63
    const int lk = (threadIdx.x % 4) * 4;  // 0,4,8,12
    for (int k0 = 0; k0 < d; k0 += GEMM_BK) {
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int k = k0 + lk + q;
            int r = rowBase + lr;
            int c = colBase + lr;
            As[lk + q][lr] = (r < rows && k < d) ? A[(size_t)r * d + k] : 0.0f;
            Bs[lk + q][lr] = (c < cols && k < d) ? B[(size_t)c * d + k] : 0.0f;
        }
        __syncthreads();
        tileFMA(As, Bs, tx, ty, acc);
        __syncthreads();
    }
    tileStore(C, ldc, rows, cols, rowBase + ty, colBase + tx, acc);
}

// row_kth: for each tile row (one 256-thread block per row), the k-th
// largest masked entry, by a radix select over floatKey in four 8-bit
// passes with a shared histogram. Rows with fewer than k masked entries
// (or k <= 0) get -infinity, which admits every entry.
__global__ void __launch_bounds__(256) row_kth(
    const float* __restrict__ C, long long rows, long long cols64, long long ldc,
    long long r0, long long c0, long long mask64, long long k64, float* __restrict__ kth)
{
    const int cols = (int)cols64, mask = (int)mask64, k = (int)k64;
    __shared__ unsigned int hist[256];
    __shared__ uint32_t sPrefix;
    __shared__ int sNeed;
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const float* rp = C + (size_t)row * ldc;
    const long long gi = r0 + row;
    // Count the masked entries first: fewer than k means no floor.
    if (threadIdx.x == 0) {
        sPrefix = 0;
        sNeed = k;
    }
    hist[threadIdx.x] = 0;
    __syncthreads();
    unsigned int mine = 0;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        if (inMask(mask, gi, c0 + j))
            mine++;
    atomicAdd(&hist[0], mine);
    __syncthreads();
    if (k <= 0 || hist[0] < (unsigned int)k) {
        if (threadIdx.x == 0)
            kth[row] = __int_as_float(0xff800000);  // -inf
        return;
    }
    __syncthreads();
    uint32_t prefixMask = 0;
    for (int shift = 24; shift >= 0; shift -= 8) {
        hist[threadIdx.x] = 0;
        __syncthreads();
        const uint32_t prefix = sPrefix;
        for (int j = threadIdx.x; j < cols; j += blockDim.x) {
            if (!inMask(mask, gi, c0 + j))
                continue;
            uint32_t key = floatKey(rp[j]);
            if ((key & prefixMask) == prefix)
                atomicAdd(&hist[(key >> shift) & 0xffu], 1u);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            // Walk down from the top digit until k entries are covered.
            int need = sNeed;
            int digit = 255;
            for (; digit > 0; digit--) {
                int h = (int)hist[digit];
                if (h >= need)
                    break;
                need -= h;
            }
            sNeed = need;
            sPrefix = prefix | ((uint32_t)digit << shift);
        }
        prefixMask |= 0xffu << shift;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        kth[row] = keyFloat(sPrefix);
}

// extract: every masked entry at or above its row's floor, appended as
// (row, column, value) triples to out at a position taken from *count.
// Entries past capacity are counted but not written, so the caller can
// grow the buffer and extract again from the same tile.
__global__ void __launch_bounds__(256) extract(
    const float* __restrict__ C, long long rows, long long cols64, long long ldc,
    long long r0, long long c0, long long mask64, const float* __restrict__ floors,
    unsigned int* __restrict__ out, long long capacity, unsigned int* __restrict__ count)
{
    const int cols = (int)cols64, mask = (int)mask64;
    const int row = blockIdx.y;
    if (row >= rows)
        return;
    const float floor = floors[row];
    const long long gi = r0 + row;
    const float* rp = C + (size_t)row * ldc;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x) {
        float v = rp[j];
        if (v >= floor && inMask(mask, gi, c0 + j)) {
            unsigned int at = atomicAdd(count, 1u);
            if ((long long)at < capacity) {
                out[3 * (size_t)at] = (unsigned int)row;
                out[3 * (size_t)at + 1] = (unsigned int)j;
                out[3 * (size_t)at + 2] = __float_as_uint(v);
            }
        }
    }
}

// sgemm_nn: C = A . B in float32 with leading dimensions, the fallback
// for the joint kernel's products (a panel of K times a block of vectors)
// when no cuBLAS library can be loaded: C rows x cols (ldc), A rows x k
// (lda), B k x cols (ldb). The same 64 x 64 blocking as sgemm_nt.
__global__ void __launch_bounds__(256) sgemm_nn(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
    long long rows64, long long cols64, long long k64,
    long long lda, long long ldb, long long ldc)
{
    const int rows = (int)rows64, cols = (int)cols64, kk = (int)k64;
    __shared__ float As[GEMM_BK][GEMM_BM + 4];
    __shared__ float Bs[GEMM_BK][GEMM_BN + 4];
    const int tx = threadIdx.x % 16;
    const int ty = threadIdx.x / 16;
    const int rowBase = blockIdx.y * GEMM_BM;
    const int colBase = blockIdx.x * GEMM_BN;
    float acc[4][4];
#pragma unroll
    for (int a = 0; a < 4; a++)
#pragma unroll
        for (int b = 0; b < 4; b++)
            acc[a][b] = 0.0f;
    // A: 64 rows x 16 k, four consecutive k per thread. B: 16 k x 64
    // columns, one k and four columns 16 apart per thread, so that a warp
    // reads runs of consecutive columns.
    const int lr = threadIdx.x / 4;
    const int lk = (threadIdx.x % 4) * 4;
    const int bk = threadIdx.x / 16;
    const int bc = threadIdx.x % 16;
    for (int k0 = 0; k0 < kk; k0 += GEMM_BK) {
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int k = k0 + lk + q;
            int r = rowBase + lr;
            As[lk + q][lr] = (r < rows && k < kk) ? A[(size_t)r * lda + k] : 0.0f;
            int c = colBase + bc + 16 * q;
            int kb = k0 + bk;
            Bs[bk][bc + 16 * q] = (c < cols && kb < kk) ? B[(size_t)kb * ldb + c] : 0.0f;
        }
        __syncthreads();
        tileFMA(As, Bs, tx, ty, acc);
        __syncthreads();
    }
    tileStore(C, ldc, rows, cols, rowBase + ty, colBase + tx, acc);
}

// hadamard: C[i, j] *= S[i, j] over rows x cols (leading dimensions ldc
// and lds): the joint kernel's tile is the video Gram tile times the text
// one, entry by entry. One block row per grid row, columns grid-strided.
__global__ void __launch_bounds__(256) hadamard(
    float* __restrict__ C, const float* __restrict__ S,
    long long rows, long long cols64, long long ldc, long long lds)
{
    const int cols = (int)cols64;
    const long long row = blockIdx.y;
    if (row >= rows)
        return;
    float* cp = C + (size_t)row * ldc;
    const float* sp = S + (size_t)row * lds;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x)
        cp[j] *= sp[j];
}

// add_f64: acc[e] += tmp[e] in float64 for e < n: the products of the
// tiles of one row panel are summed in float64, tile by tile in
// increasing column order, as the CPU operator sums them.
__global__ void __launch_bounds__(256) add_f64(
    double* __restrict__ acc, const float* __restrict__ tmp, long long n)
{
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (long long)gridDim.x * blockDim.x)
        acc[e] += (double)tmp[e];
}

}  // extern "C"
