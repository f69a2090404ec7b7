package kernels

import (
	"fmt"
	"math"
)

// A NonFiniteError reports a NaN or an infinity in a matrix of embeddings.
// One such value poisons every similarity of its row (NaN compares false
// with any threshold, so a join silently finds no pairs) and every
// eigenvalue of a kernel built from it; callers check inputs with
// CheckFinite and refuse them rather than report a wrong answer.
type NonFiniteError struct {
	Row, Col int     // 0-based position of the first such value, row-major order
	Value    float32 // the value: NaN, +Inf or -Inf
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("row %d, column %d is %v (embeddings must be finite)", e.Row, e.Col, e.Value)
}

// CheckFinite returns a *NonFiniteError naming the first NaN or infinity of
// m in row-major order, or nil when every value is finite.
func CheckFinite(m *Matrix) error {
	if i := firstNonFinite(m.Data); i >= 0 {
		return &NonFiniteError{Row: i / max(m.Cols, 1), Col: i % max(m.Cols, 1), Value: m.Data[i]}
	}
	return nil
}

// CheckFiniteVector is CheckFinite for one embedding (Row is 0).
func CheckFiniteVector(v []float32) error {
	if i := firstNonFinite(v); i >= 0 {
		return &NonFiniteError{Col: i, Value: v[i]}
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or infinity, or -1. It
// tests the exponent bits, which are all ones exactly for those values.
func firstNonFinite(data []float32) int {
	for i, v := range data {
		if math.Float32bits(v)&0x7f800000 == 0x7f800000 {
			return i
		}
	}
	return -1
}
