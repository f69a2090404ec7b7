package npy

import (
	"fmt"
	"io"
)

// Uint8 is the dtype of WriteUint8's arrays.
const Uint8 = "|u1"

// WriteUint8 writes data, the concatenation of chunks, as a C-order uint8
// array of the given shape: the layout numpy and PIL use for images
// ((N, H, W, 3) for N RGB frames, one chunk per frame, so that they need
// not be copied into one slice). The product of shape must be the total
// length.
func WriteUint8(w io.Writer, shape []int, chunks ...[]byte) error {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("npy: negative dimension in shape %v", shape)
		}
		n *= d
	}
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	if n != total {
		return fmt.Errorf("npy: shape %v holds %d values, not %d", shape, n, total)
	}
	if _, err := w.Write(formatHeader(Header{Descr: Uint8, Shape: shape})); err != nil {
		return err
	}
	for _, c := range chunks {
		if _, err := w.Write(c); err != nil {
			return err
		}
	}
	return nil
}
