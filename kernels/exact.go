package kernels

// The rules every backend decides with, exported so that a backend in
// another package (kernels/cuda) shortlists and decides exactly as the CPU
// kernels do: float32 tiles only propose candidates, within a margin of
// their worst rounding error, and a float64 product summed in index order
// decides. That is what makes a GPU's pair set equal the CPU's.

// Dot64 is the float64 dot product of two float32 vectors, summed in index
// order; every backend decides pairs and neighbours with it.
func Dot64(x, y []float32) float64 { return dot64(x, y) }

// RowNorms returns the Euclidean norm of each row of m and the largest.
func RowNorms(m *Matrix) ([]float64, float64) { return rowNorms(m) }

// RoundingBound is gamma_n, the worst-case relative error of a float32 dot
// product of length n in any summation order, fused or not:
// |fl(x.y) - x.y| <= RoundingBound(n)*||x||*||y||. Thresholds on float32
// tiles are lowered by twice this much.
func RoundingBound(n int) float64 { return gamma(n) }
