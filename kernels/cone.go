package kernels

import (
	"math"
	"math/rand/v2"
)

// ConeRows returns n unit rows of d columns drawn from rng around nc
// cluster centres in a narrow cone, the shape of real embeddings (typical
// cosines 0.3 to 0.7), so that a kernel built from them has the spectrum
// the estimators meet in practice. It is test data: the package's tests,
// the GPU backend's and the device check's Vendi timings draw from it,
// each with its own stream.
func ConeRows(rng *rand.Rand, n, d, nc int) *Matrix {
	common := make([]float64, d)
	for j := range common {
		common[j] = rng.NormFloat64() / math.Sqrt(float64(d))
	}
	centres := make([][]float64, nc)
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range centres[c] {
			centres[c][j] = 0.8 * rng.NormFloat64() / math.Sqrt(float64(d))
		}
	}
	m := NewMatrix(n, d)
	for i := 0; i < n; i++ {
		c := centres[rng.IntN(nc)]
		r := m.Row(i)
		for j := range r {
			r[j] = float32(common[j] + c[j] + 0.6*rng.NormFloat64()/math.Sqrt(float64(d)))
		}
	}
	NormalizeRows(m)
	return m
}
