package cuda

// The tile GEMMs of kernels.cu as the Go side launches them. The
// constants mirror the #defines and __launch_bounds__ of kernels.cu, which
// gemmlaunch_test.go reads from the source and the PTX, so a change on one
// side that the other does not follow fails a test rather than launching
// a kernel with the wrong block or grid.
const (
	// sgemm_nt: 64 x 64 tiles of C, 256 threads (GEMM_BM, GEMM_BN).
	sgemmTile    = 64
	sgemmThreads = 256

	// gemm_tf32_nt and gemm_bf16_nt: MMA_BM x MMA_BN tiles of C per block
	// of MMA_THREADS threads, staging MMA_KW words of k per pass, at least
	// MMA_MIN_BLOCKS resident blocks per SM (which caps their registers).
	mmaBM        = 64
	mmaBN        = 64
	mmaKW        = 32
	mmaThreads   = 256
	mmaMinBlocks = 4
	mmaWarps     = mmaThreads / 32
)

// A gemmKernel is one of the row-major C = A . B^T kernels, all with the
// parameters (A, B, C, rows, cols, d, ldc).
type gemmKernel struct {
	name               string
	threads            int // block size: the kernel's __launch_bounds__
	tileRows, tileCols int // the tile of C one block computes
	// sharedBytes is the dynamic shared memory a launch asks for; the
	// kernels' shared arrays are static, so 0.
	sharedBytes int
}

// tileGEMM is the project's own kernel for tile products in p: the
// fallback when no cuBLAS library loads.
func tileGEMM(p Precision) gemmKernel {
	switch p {
	case TF32:
		return gemmKernel{name: "gemm_tf32_nt", threads: mmaThreads, tileRows: mmaBM, tileCols: mmaBN}
	case BF16:
		return gemmKernel{name: "gemm_bf16_nt", threads: mmaThreads, tileRows: mmaBM, tileCols: mmaBN}
	}
	return gemmKernel{name: "sgemm_nt", threads: sgemmThreads, tileRows: sgemmTile, tileCols: sgemmTile}
}

// grid is the launch grid for a rows x cols C: one block per tile, x
// along columns and y along rows, as the kernels read blockIdx.
func (k gemmKernel) grid(rows, cols int) (gx, gy int) {
	return (cols + k.tileCols - 1) / k.tileCols, (rows + k.tileRows - 1) / k.tileRows
}

// moduleEntries are the kernels.cu entries Open loads from the module for
// a device of precision p, in the order of the GPU's fields: sgemm_nt
// (the Gram tiles), the join's tile GEMM, row_kth, extract, sgemm_nn,
// hadamard and add_f64.
func moduleEntries(p Precision) []string {
	return []string{"sgemm_nt", tileGEMM(p).name, "row_kth", "extract", "sgemm_nn", "hadamard", "add_f64"}
}
