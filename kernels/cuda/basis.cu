// The block Lanczos basis's Gram-Schmidt products in float64, for when no
// cuBLAS library loads (basis_cuda.go; basis_host.go is their Go port,
// which the tests hold them to bit for bit). Q is the basis, n x ld row
// major, of which the first m columns count; W a block, n x r; H the
// coefficients, m x r. No atomics: every sum has one fixed order.
//
//   basis_tn      P[ch] = Q_m^T W over rows [ch*BASIS_CHUNK, ...), an fma
//                 chain over the chunk's rows in increasing order
//   basis_reduce  H = P[0] + P[1] + ... in increasing chunk order
//   basis_nn      W -= Q_m H, each entry's sum an fma chain over the m
//                 columns in increasing order, subtracted once; or, with
//                 set, W = Q_m H (the orthonormalisation's W U, with the
//                 block for Q)
//
// Compiled to PTX for compute_80 by `make ptx` (basis.ptx, embedded).

// Rows of Q per partial product (basis.go's basisChunk); the tile edge (32
// columns of Q or W, 32 rows a stage); the rows of W a block of basis_nn
// updates. basis_launch_test.go holds basis.go to them.
#define BASIS_CHUNK 512
#define BASIS_T 32
#define BASIS_NN_ROWS 64

extern "C" {

// basis_tn: grid (chunks, ceil(m/32), ceil(r/32)), 256 threads; thread
// (tx, ty) = (threadIdx.x % 32, threadIdx.x / 32) holds P[ch][i][c] for c =
// c0 + tx and i = i0 + ty + 8j, j < 4. Q's and W's rows of a stage are
// read by consecutive threads along the row (coalesced) into shared
// memory; a warp then reads one Q value (broadcast) and 32 W values.
__global__ void __launch_bounds__(256) basis_tn(
    const double* __restrict__ Q, long long ld, const double* __restrict__ W,
    long long r64, long long n, long long m64, double* __restrict__ part)
{
    const int r = (int)r64, m = (int)m64;
    __shared__ double Qs[BASIS_T][BASIS_T];
    __shared__ double Ws[BASIS_T][BASIS_T];
    const int tx = threadIdx.x % BASIS_T, ty = threadIdx.x / BASIS_T;
    const int i0 = blockIdx.y * BASIS_T, c0 = blockIdx.z * BASIS_T;
    const long long kBegin = (long long)blockIdx.x * BASIS_CHUNK;
    const long long kEnd = min(kBegin + BASIS_CHUNK, n);
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    for (long long k0 = kBegin; k0 < kEnd; k0 += BASIS_T) {
        const int kn = (int)min((long long)BASIS_T, kEnd - k0);
        // Thread (tx, ty) stages rows ty, ty + 8, ... at column tx.
        const double* qp = Q + (size_t)(k0 + ty) * ld + i0 + tx;
        const double* wp = W + (size_t)(k0 + ty) * r + c0 + tx;
#pragma unroll
        for (int l = 0; l < 4; l++) {
            const int kk = ty + 8 * l;
            Qs[kk][tx] = (kk < kn && i0 + tx < m) ? qp[(size_t)(8 * l) * ld] : 0.0;
            Ws[kk][tx] = (kk < kn && c0 + tx < r) ? wp[(size_t)(8 * l) * r] : 0.0;
        }
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < kn; kk++) {
            const double w = Ws[kk][tx];
#pragma unroll
            for (int j = 0; j < 4; j++)
                acc[j] = fma(Qs[kk][ty + 8 * j], w, acc[j]);
        }
        __syncthreads();
    }
    const int c = c0 + tx;
    if (c >= r)
        return;
    double* p = part + (size_t)blockIdx.x * m * r;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int i = i0 + ty + 8 * j;
        if (i < m)
            p[(size_t)i * r + c] = acc[j];
    }
}

// basis_reduce: H[e] = P[0][e] + P[1][e] + ... for e < count, grid-strided.
__global__ void __launch_bounds__(256) basis_reduce(
    const double* __restrict__ part, long long chunks, long long count, double* __restrict__ H)
{
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (long long)gridDim.x * blockDim.x) {
        double s = part[e];
        for (long long ch = 1; ch < chunks; ch++)
            s += part[ch * count + e];
        H[e] = s;
    }
}

// basis_nn: grid (ceil(n/64), ceil(r/32)), 256 threads; thread (tx, ty)
// updates W[k][c] for c = c0 + tx and k = k0 + ty + 8j, j < 8, over stages
// of 32 columns of Q (rows of H). Q and W never overlap (for W U the
// output is a block buffer of its own).
__global__ void __launch_bounds__(256) basis_nn(
    const double* __restrict__ Q, long long ld, const double* __restrict__ H,
    long long r64, long long n, long long m64, double* __restrict__ W, long long set)
{
    const int r = (int)r64, m = (int)m64;
    __shared__ double Qs[BASIS_NN_ROWS][BASIS_T];
    __shared__ double Hs[BASIS_T][BASIS_T];
    const int tx = threadIdx.x % BASIS_T, ty = threadIdx.x / BASIS_T;
    const long long k0 = (long long)blockIdx.x * BASIS_NN_ROWS;
    const int c0 = blockIdx.y * BASIS_T;
    double acc[8];
#pragma unroll
    for (int j = 0; j < 8; j++)
        acc[j] = 0.0;
    for (int i0 = 0; i0 < m; i0 += BASIS_T) {
        const int in = min(BASIS_T, m - i0);
        // Thread (tx, ty) stages rows ty, ty + 8, ... at column tx.
        const double* qp = Q + (size_t)(k0 + ty) * ld + i0 + tx;
#pragma unroll
        for (int l = 0; l < 8; l++) {
            const int kk = ty + 8 * l;
            Qs[kk][tx] = (k0 + kk < n && tx < in) ? qp[(size_t)(8 * l) * ld] : 0.0;
        }
        const double* hp = H + (size_t)(i0 + ty) * r + c0 + tx;
#pragma unroll
        for (int l = 0; l < 4; l++) {
            const int ii = ty + 8 * l;
            Hs[ii][tx] = (ii < in && c0 + tx < r) ? hp[(size_t)(8 * l) * r] : 0.0;
        }
        __syncthreads();
#pragma unroll 2
        for (int ii = 0; ii < in; ii++) {
            const double h = Hs[ii][tx];
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[j] = fma(Qs[ty + 8 * j][ii], h, acc[j]);
        }
        __syncthreads();
    }
    const int c = c0 + tx;
    if (c >= r)
        return;
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const long long k = k0 + ty + 8 * j;
        if (k < n)
            W[(size_t)k * r + c] = set ? acc[j] : W[(size_t)k * r + c] - acc[j];
    }
}

}  // extern "C"
