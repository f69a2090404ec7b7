package run

import (
	"errors"
	"fmt"
	"io"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// embedRows is one kind of text embedding (question+options or question)
// of every item of a run, left on disk: the embedding stage writes each
// benchmark's rows to its cache file (embedCache, one matrix per benchmark)
// and keeps only where each item's row lies, so that the audit holds the
// rows of the benchmark it works on, or a tile of the near-duplicate join,
// rather than two n x d matrices (2 GB at 500,000 items and 512 columns).
// A benchmark's rows are contiguous in its file, in item order.
//
// It is a kernels.RowReader in item order, and safe for concurrent reads.
type embedRows struct {
	cols int
	// src holds each benchmark's rows: an open cache file, or, for a
	// matrix that is not cached (one with a non-finite row), the matrix.
	src []kernels.RowReader
	at  []rowAt // by item
}

// rowAt says where an item's row is: row row of src[src].
type rowAt struct{ src, row int32 }

func newEmbedRows(items, cols int) *embedRows {
	at := make([]rowAt, items)
	for i := range at {
		at[i].src = -1
	}
	return &embedRows{cols: cols, at: at}
}

// add makes r hold the rows of items (indices into the run's items), r's
// row k being that of items[k].
func (e *embedRows) add(r kernels.RowReader, items []int) error {
	rows, cols := r.Shape()
	if rows != len(items) || cols != e.cols {
		return fmt.Errorf("embeddings: %dx%d rows for %d items of width %d", rows, cols, len(items), e.cols)
	}
	for k, i := range items {
		e.at[i] = rowAt{int32(len(e.src)), int32(k)}
	}
	e.src = append(e.src, r)
	return nil
}

// Shape returns the items and the columns.
func (e *embedRows) Shape() (rows, cols int) { return len(e.at), e.cols }

// ReadRows fills dst with the rows of the items from lo on, in item order.
func (e *embedRows) ReadRows(dst []float32, lo int) error {
	if e.cols == 0 {
		return nil
	}
	n := len(dst) / e.cols
	if len(dst)%e.cols != 0 || lo < 0 || lo+n > len(e.at) {
		return fmt.Errorf("embeddings: rows %d..%d of %d", lo, lo+n, len(e.at))
	}
	return e.read(dst, n, func(p int) int { return lo + p })
}

// gather returns the rows of items order, in that order.
func (e *embedRows) gather(order []int32) (*kernels.Matrix, error) {
	m := kernels.NewMatrix(len(order), e.cols)
	if e.cols == 0 {
		return m, nil
	}
	if err := e.read(m.Data, len(order), func(p int) int { return int(order[p]) }); err != nil {
		return nil, err
	}
	return m, nil
}

// read fills dst with the rows of items item(0..n-1), one read per run of
// items whose rows follow each other in one source (a benchmark's items in
// item order are one run).
func (e *embedRows) read(dst []float32, n int, item func(p int) int) error {
	for p := 0; p < n; {
		first := e.at[item(p)]
		if first.src < 0 {
			return fmt.Errorf("embeddings: item %d has no row", item(p))
		}
		q := p + 1
		for q < n {
			next := e.at[item(q)]
			if next.src != first.src || next.row != first.row+int32(q-p) {
				break
			}
			q++
		}
		if err := e.src[first.src].ReadRows(dst[p*e.cols:q*e.cols], int(first.row)); err != nil {
			return err
		}
		p = q
	}
	return nil
}

// writeNPY writes the rows in item order as one .npy matrix, a tile at a
// time: the bytes npy.Write gives for the whole matrix.
func (e *embedRows) writeNPY(w io.Writer) error {
	rw, err := npy.NewRowWriter(w, len(e.at), e.cols)
	if err != nil {
		return err
	}
	const tile = 4096
	buf := make([]float32, min(tile, len(e.at))*e.cols)
	for lo := 0; lo < len(e.at); lo += tile {
		hi := min(lo+tile, len(e.at))
		b := buf[:(hi-lo)*e.cols]
		if err := e.ReadRows(b, lo); err != nil {
			return err
		}
		if err := rw.Write(b); err != nil {
			return err
		}
	}
	return rw.Close()
}

// close closes the cache files.
func (e *embedRows) close() error {
	if e == nil {
		return nil
	}
	var errs []error
	for _, s := range e.src {
		if c, ok := s.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	e.src = nil
	return errors.Join(errs...)
}
