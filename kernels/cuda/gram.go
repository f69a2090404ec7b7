package cuda

// A GramDevice is a Device that also forms tiles of a joint Gram kernel,
// (V V^T) o (T T^T), and multiplies them into blocks of vectors: what
// JointKernel needs to run the Vendi estimate's products on the device.
// The tile loops, the choice of which rows of K stay resident and the
// float64 accumulation order are JointKernel's, so they are the same on
// every device and are tested on Host.
type GramDevice interface {
	Device
	// GramTile is the edge of the kernel tiles the device forms at once.
	GramTile() int
	// KernelMemory is the device memory kernel panels may take now (the
	// free memory less what the workers need), in bytes.
	KernelMemory(n, workers, maxCols int) (int64, error)
	// AllocPanel holds rows x cols float32 entries of the kernel.
	AllocPanel(rows, cols int) (Panel, error)
	// NewGramWorker opens a worker for products with blocks of n x cols
	// vectors, cols <= maxCols.
	NewGramWorker(n, maxCols int) (GramWorker, error)
}

// A Panel is a row-major block of kernel entries held in device memory.
type Panel interface {
	Rows() int
	Cols() int
	// Free releases the device memory; the Panel is unusable after.
	Free() error
}

// A GramWorker forms kernel tiles and multiplies them into the block it
// holds; it is used by one goroutine. Its products are float32 (never
// TF32: a Vendi estimate needs the kernel's entries to 1e-6) and are
// accumulated tile by tile in float64.
type GramWorker interface {
	// SetBlock copies the block X (n x cols, row major) to the device.
	SetBlock(x []float32, cols int) error
	// Gram sets dst[0:rows, at:at+cols] to rows [r0, r0+rows) x columns
	// [c0, c0+cols) of the unweighted kernel: v_i . v_j times t_i . t_j
	// (t nil: v_i . v_j alone).
	Gram(v, t Resident, r0, rows, c0, cols int, dst Panel, at int) error
	// Scratch is the worker's own GramTile x GramTile panel, for tiles
	// formed on the fly.
	Scratch() Panel
	// MulAdd adds src[0:rows, at:at+w] . X[x0:x0+w, :] in float32 to the
	// worker's float64 accumulator (rows x cols).
	MulAdd(src Panel, rows, at, w, x0 int) error
	// Take copies the accumulator's first rows x cols values to y and
	// clears it.
	Take(y []float64, rows int) error
	// Close frees the worker's device memory.
	Close() error
}
