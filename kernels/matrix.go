package kernels

import (
	"fmt"
	"math"
)

// A Matrix is a dense row-major float32 matrix: element (i, j) is
// Data[i*Cols+j]. Embedding matrices hold one item per row.
type Matrix struct {
	Rows, Cols int
	Data       []float32
}

// NewMatrix returns a zeroed rows x cols matrix.
func NewMatrix(rows, cols int) *Matrix {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("kernels: negative dimensions %dx%d", rows, cols))
	}
	return &Matrix{Rows: rows, Cols: cols, Data: make([]float32, rows*cols)}
}

// Row returns row i, sharing storage with m.
func (m *Matrix) Row(i int) []float32 { return m.Data[i*m.Cols : (i+1)*m.Cols : (i+1)*m.Cols] }

// NormalizeRows scales every row to unit Euclidean length; zero rows stay zero.
func NormalizeRows(m *Matrix) {
	for i := 0; i < m.Rows; i++ {
		r := m.Row(i)
		var s float64
		for _, v := range r {
			s += float64(v) * float64(v)
		}
		if s == 0 {
			continue
		}
		inv := float32(1 / math.Sqrt(s))
		for j := range r {
			r[j] *= inv
		}
	}
}
