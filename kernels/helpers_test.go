package kernels

import (
	"math"
	"math/rand/v2"
)

// clustered returns n unit rows of dimension d drawn around nc random
// centres with noise of the given scale, so that many pairs lie near any
// cosine threshold of interest (as near-duplicate questions do).
func clustered(seed uint64, n, d, nc int, noise float64) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 1))
	centres := NewMatrix(nc, d)
	for i := range centres.Data {
		centres.Data[i] = float32(rng.NormFloat64())
	}
	NormalizeRows(centres)
	m := NewMatrix(n, d)
	for i := 0; i < n; i++ {
		c := centres.Row(rng.IntN(nc))
		r := m.Row(i)
		for j := range r {
			r[j] = c[j] + float32(noise*rng.NormFloat64()/math.Sqrt(float64(d)))
		}
	}
	NormalizeRows(m)
	return m
}

// bruteDot is the float64 reference product used by every test.
func bruteDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
