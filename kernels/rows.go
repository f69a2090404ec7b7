package kernels

import "fmt"

// A RowReader hands out rows of a matrix that need not be in memory (a .npy
// file on disk, read by ranges): the joins that scale with a whole pool
// (ThresholdJoinRows) read it a tile at a time, so that memory holds a few
// tiles rather than the matrix.
type RowReader interface {
	// Shape returns the number of rows and columns.
	Shape() (rows, cols int)
	// ReadRows fills dst, whose length is a multiple of the column count,
	// with the rows from lo on.
	ReadRows(dst []float32, lo int) error
}

// Shape returns m's rows and columns, so that a Matrix is a RowReader.
func (m *Matrix) Shape() (rows, cols int) { return m.Rows, m.Cols }

// ReadRows copies the rows from lo on into dst.
func (m *Matrix) ReadRows(dst []float32, lo int) error {
	if m.Cols == 0 {
		return nil
	}
	n := len(dst) / m.Cols
	if len(dst)%m.Cols != 0 || lo < 0 || lo+n > m.Rows {
		return fmt.Errorf("read rows %d..%d of a %dx%d matrix into %d values", lo, lo+n, m.Rows, m.Cols, len(dst))
	}
	copy(dst, m.Data[lo*m.Cols:(lo+n)*m.Cols])
	return nil
}

// ReadMatrix reads rows [lo, hi) of r into a new matrix.
func ReadMatrix(r RowReader, lo, hi int) (*Matrix, error) {
	_, cols := r.Shape()
	m := NewMatrix(hi-lo, cols)
	if err := r.ReadRows(m.Data, lo); err != nil {
		return nil, err
	}
	return m, nil
}
