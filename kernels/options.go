package kernels

import (
	"math"
	"runtime"
)

// Options bounds the work of a kernel and says where its searches run.
// The zero value means sensible defaults (all cores, the CPU).
type Options struct {
	// Threads is the number of goroutines a kernel runs on; 0 means
	// GOMAXPROCS. Results never depend on it.
	Threads int
	// Joiner runs ThresholdJoin and the tile pairs of ThresholdJoinRows,
	// and Searcher runs TopK and TopKEarlier (a GPU's, kernels/cuda's
	// Backend); nil means the CPU kernels. Every backend gives the CPU's
	// pairs and neighbours, so they change where the work runs, never
	// what it finds, and a caller that takes Options places its searches
	// without knowing which backend it got.
	Joiner   Joiner
	Searcher NeighbourSearcher
}

func (o Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// gamma is the worst-case relative error of a float32 dot product of
// length n in any summation order, fused or not: gamma_n = n*u/(1-n*u) with
// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
// ed., eq. 3.4). |fl(x.y) - x.y| <= gamma_n * |x|.|y| <= gamma_n*||x||*||y||.
// The kernels widen float32 thresholds by twice this much and decide in
// float64, so their answers do not depend on how BLAS summed.
func gamma(n int) float64 {
	u := math.Ldexp(1, -24)
	nu := float64(n+2) * u
	if nu >= 0.5 {
		return 1
	}
	return 2 * nu / (1 - nu)
}

// rowNorms returns the Euclidean norm of each row and the largest.
func rowNorms(m *Matrix) ([]float64, float64) {
	out := make([]float64, m.Rows)
	var mx float64
	for i := range out {
		var s float64
		for _, v := range m.Row(i) {
			s += float64(v) * float64(v)
		}
		out[i] = math.Sqrt(s)
		mx = max(mx, out[i])
	}
	return out, mx
}

// dot64 is the float64 dot product of two float32 vectors, summed in index
// order so every backend and thread count agrees bit for bit.
func dot64(x, y []float32) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * float64(y[i])
		s1 += float64(x[i+1]) * float64(y[i+1])
		s2 += float64(x[i+2]) * float64(y[i+2])
		s3 += float64(x[i+3]) * float64(y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(y[i])
	}
	return (s0 + s1) + (s2 + s3)
}
