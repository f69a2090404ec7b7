package npy

import (
	"bytes"
	"slices"
	"testing"
)

func TestWriteUint8(t *testing.T) {
	t.Parallel()
	data := []byte{0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255}
	var b bytes.Buffer
	if err := WriteUint8(&b, []int{2, 1, 2, 3}, data[:6], data[6:]); err != nil {
		t.Fatal(err)
	}
	h, err := ReadHeader(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if h.Descr != Uint8 || !slices.Equal(h.Shape, []int{2, 1, 2, 3}) || h.FortranOrder {
		t.Errorf("header %+v", h)
	}
	if (b.Len()-len(data))%64 != 0 || !bytes.HasSuffix(b.Bytes(), data) {
		t.Errorf("the data does not follow a 64-byte aligned header: %d bytes", b.Len())
	}
	if err := WriteUint8(&b, []int{5}, data); err == nil {
		t.Error("a shape that does not hold the data was accepted")
	}
}
