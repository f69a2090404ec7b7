package tokenizer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// protoReader walks protobuf wire format: just enough of it (varint,
// 64-bit, length-delimited, 32-bit) to read a SentencePiece ModelProto
// without a protobuf dependency. Every read is bounds-checked so that a
// truncated or corrupt file is an error, never a panic.
type protoReader struct {
	b   []byte
	pos int
}

// wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

var errTruncated = errors.New("truncated")

func (r *protoReader) done() bool { return r.pos >= len(r.b) }

func (r *protoReader) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.pos >= len(r.b) {
			return 0, errTruncated
		}
		c := r.b[r.pos]
		r.pos++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

// key reads a field key: its number and wire type.
func (r *protoReader) key() (int, int, error) {
	k, err := r.varint()
	if err != nil {
		return 0, 0, err
	}
	if k>>3 == 0 || k>>3 > math.MaxInt32 {
		return 0, 0, fmt.Errorf("field number %d", k>>3)
	}
	return int(k >> 3), int(k & 7), nil
}

func (r *protoReader) bytes() ([]byte, error) {
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.pos) {
		return nil, fmt.Errorf("length %d past the end (%d bytes left)", n, len(r.b)-r.pos)
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *protoReader) fixed32() (uint32, error) {
	if len(r.b)-r.pos < 4 {
		return 0, errTruncated
	}
	v := binary.LittleEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return v, nil
}

// skip passes over a field of the given wire type that the reader does not need.
func (r *protoReader) skip(wire int) error {
	var err error
	switch wire {
	case wireVarint:
		_, err = r.varint()
	case wireFixed64:
		if len(r.b)-r.pos < 8 {
			return errTruncated
		}
		r.pos += 8
	case wireBytes:
		_, err = r.bytes()
	case wireFixed32:
		_, err = r.fixed32()
	default:
		err = fmt.Errorf("wire type %d (groups and unknown types are not read)", wire)
	}
	return err
}

// boolField reads a bool, a varint on the wire, after its key.
func (r *protoReader) boolField(field string, wire int) (bool, error) {
	if err := expect(field, wire, wireVarint); err != nil {
		return false, err
	}
	v, err := r.varint()
	return v != 0, err
}

// expect checks that a known field came with the wire type its schema gives.
func expect(field string, got, want int) error {
	if got != want {
		return fmt.Errorf("field %s: wire type %d, want %d", field, got, want)
	}
	return nil
}

// int32Of reads a varint as protobuf's int32: negative values travel as
// ten-byte two's complement.
func int32Of(v uint64) (int, error) {
	i := int64(v)
	if i < math.MinInt32 || i > math.MaxInt32 {
		return 0, fmt.Errorf("value %d is not an int32", i)
	}
	return int(i), nil
}
