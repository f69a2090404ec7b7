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

// The tensor-core GEMMs: C = A . B^T with TF32 or BF16 inputs and float32
// accumulation (mma.sync), for the join and top-k tiles when the device's
// precision is tf32 or bf16 and no cuBLAS library can be loaded. Same
// parameters and edge rules as sgemm_nt: out-of-range rows, columns and k
// read zeros and are not written.
//
// Each 256-thread block (8 warps) computes a MMA_BM x MMA_BN tile of C.
// Per stage it stages MMA_KW 32-bit words of k for MMA_BM rows of A and
// MMA_BN rows of B in shared memory, converted on the way in: a word holds
// one TF32 value (cvt.rna.tf32.f32, to nearest, ties away) or two BF16
// values (cvt.rn.bf16x2.f32, to nearest even; the lower k in the low half,
// as mma expects). The fragment layouts of m16n8k8 TF32 and m16n8k16 BF16
// are the same in words, so one body serves both: warp w owns rows
// 16 (w % 4) .. +16 and columns 32 (w / 4) .. +32 of the block's tile, four
// m16n8 accumulators, and per mma reads words (g, t), (g+8, t), (g, t+4),
// (g+8, t+4) of A and (g, t), (g, t+4) of B, g = lane / 4, t = lane % 4.
// The row stride MMA_KW + 4 keeps those reads free of bank conflicts.
#define MMA_BM 64
#define MMA_BN 64
#define MMA_KW 32
#define MMA_THREADS 256
// Four resident blocks per SM cap ptxas at 64 registers a thread (65,536 /
// (4 x 256)), the package's limit; 4 x 18 KiB of shared memory fits too.
#define MMA_MIN_BLOCKS 4

__device__ __forceinline__ uint32_t toTF32(float x) {
    uint32_t u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
    return u;
}

__device__ __forceinline__ uint32_t toBF16x2(float lo, float hi) {
    uint32_t u;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(u) : "f"(hi), "f"(lo));
    return u;
}

}  // extern "C": the templates below have C++ linkage

// stageWord is word w of k of row r (of n rows, d columns) of M, converted:
// k = w for TF32, k = 2w and 2w + 1 for BF16; zero outside M.
template <bool BF16>
__device__ __forceinline__ uint32_t stageWord(const float* __restrict__ M, int n, int d, int r, int w) {
    if (r >= n)
        return 0u;
    const float* row = M + (size_t)r * d;
    if (BF16) {
        const int k = 2 * w;
        const float lo = k < d ? row[k] : 0.0f;
        const float hi = k + 1 < d ? row[k + 1] : 0.0f;
        return toBF16x2(lo, hi);
    }
    return w < d ? toTF32(row[w]) : 0u;
}

template <bool BF16>
__device__ __forceinline__ void mma16x8(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
    if (BF16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
}

template <bool BF16>
__device__ __forceinline__ void gemmMMA(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
    int rows, int cols, int d, long long ldc)
{
    __shared__ uint32_t As[MMA_BM][MMA_KW + 4];
    __shared__ uint32_t Bs[MMA_BN][MMA_KW + 4];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;
    const int wr = 16 * (warp % 4), wc = 32 * (warp / 4);
    const int rowBase = blockIdx.y * MMA_BM, colBase = blockIdx.x * MMA_BN;
    // Words of k in all: d for TF32, ceil(d / 2) for BF16.
    const int words = BF16 ? (d + 1) / 2 : d;
    float acc[4][4];
#pragma unroll
    for (int n = 0; n < 4; n++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            acc[n][e] = 0.0f;
    for (int w0 = 0; w0 < words; w0 += MMA_KW) {
        // 64 rows x 32 words per operand, 8 per thread; a warp stages one
        // row's 32 consecutive words, so its global reads are contiguous.
#pragma unroll
        for (int q = 0; q < (MMA_BM * MMA_KW) / MMA_THREADS; q++) {
            const int idx = threadIdx.x + MMA_THREADS * q;
            const int r = idx / MMA_KW, w = idx % MMA_KW;
            const bool in = w0 + w < words;
            As[r][w] = in ? stageWord<BF16>(A, rows, d, rowBase + r, w0 + w) : 0u;
            Bs[r][w] = in ? stageWord<BF16>(B, cols, d, colBase + r, w0 + w) : 0u;
        }
        __syncthreads();
#pragma unroll
        for (int ks = 0; ks < MMA_KW; ks += 8) {
            uint32_t a[4];
            a[0] = As[wr + g][ks + t];
            a[1] = As[wr + g + 8][ks + t];
            a[2] = As[wr + g][ks + t + 4];
            a[3] = As[wr + g + 8][ks + t + 4];
#pragma unroll
            for (int n = 0; n < 4; n++) {
                const int bn = wc + 8 * n + g;
                mma16x8<BF16>(acc[n], a, Bs[bn][ks + t], Bs[bn][ks + t + 4]);
            }
        }
        __syncthreads();
    }
    // Accumulator e of tile n is row g + 8 (e / 2), column 8n + 2t + e % 2.
#pragma unroll
    for (int n = 0; n < 4; n++) {
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int r = rowBase + wr + g + 8 * (e / 2);
            const int c = colBase + wc + 8 * n + 2 * t + (e % 2);
            if (r < rows && c < cols)
                C[(size_t)r * ldc + c] = acc[n][e];
        }
    }
}

extern "C" {

__global__ void __launch_bounds__(MMA_THREADS, MMA_MIN_BLOCKS) gemm_tf32_nt(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
    long long rows64, long long cols64, long long d64, long long ldc)
{
    gemmMMA<false>(A, B, C, (int)rows64, (int)cols64, (int)d64, ldc);
}

__global__ void __launch_bounds__(MMA_THREADS, MMA_MIN_BLOCKS) gemm_bf16_nt(
    const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
    long long rows64, long long cols64, long long d64, long long ldc)
{
    gemmMMA<true>(A, B, C, (int)rows64, (int)cols64, (int)d64, ldc);
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
