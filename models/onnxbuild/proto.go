package onnxbuild

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers and enum values below are those of onnx/onnx.proto3
// (https://github.com/onnx/onnx/blob/main/onnx/onnx.proto3). Only the fields a
// graph of dense tensors needs are written.

// DataType is TensorProto.DataType.
type DataType int32

// The element types the builder writes.
const (
	Float DataType = 1
	Int32 DataType = 6
	Int64 DataType = 7
	Bool  DataType = 9
)

const (
	// irVersion 8 is the IR version that goes with opset 17 (onnx/docs/Versioning.md).
	irVersion = 8
	// Opset is the default-domain operator set the models use. LayerNormalization
	// first appears in opset 17.
	Opset = 17
)

// attribute types, AttributeProto.AttributeType.
const (
	attrFloat  = 1
	attrInt    = 2
	attrString = 3
	attrInts   = 7
)

// Attr is one node attribute.
type Attr struct {
	name string
	kind int
	f    float32
	i    int64
	s    string
	ints []int64
}

// AttrInt is an INT attribute.
func AttrInt(name string, v int64) Attr { return Attr{name: name, kind: attrInt, i: v} }

// AttrFloat is a FLOAT attribute.
func AttrFloat(name string, v float32) Attr { return Attr{name: name, kind: attrFloat, f: v} }

// AttrInts is an INTS attribute.
func AttrInts(name string, v ...int64) Attr { return Attr{name: name, kind: attrInts, ints: v} }

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// AttributeProto: name=1, f=2, i=3, s=4, ints=8, type=20.
func (a Attr) marshal() []byte {
	var b []byte
	b = appendString(b, 1, a.name)
	switch a.kind {
	case attrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.f))
	case attrInt:
		b = appendVarint(b, 3, uint64(a.i))
	case attrString:
		b = appendBytes(b, 4, []byte(a.s))
	case attrInts:
		var packed []byte
		for _, v := range a.ints {
			packed = protowire.AppendVarint(packed, uint64(v))
		}
		b = appendBytes(b, 8, packed)
	}
	return appendVarint(b, 20, uint64(a.kind))
}

// node is NodeProto: input=1, output=2, name=3, op_type=4, attribute=5.
type node struct {
	op      string
	name    string
	inputs  []string
	outputs []string
	attrs   []Attr
}

func (n *node) marshal() []byte {
	var b []byte
	for _, s := range n.inputs {
		b = appendString(b, 1, s)
	}
	for _, s := range n.outputs {
		b = appendString(b, 2, s)
	}
	b = appendString(b, 3, n.name)
	b = appendString(b, 4, n.op)
	for _, a := range n.attrs {
		b = appendBytes(b, 5, a.marshal())
	}
	return b
}

// tensor is TensorProto: dims=1, data_type=2, name=8, raw_data=9 (little endian).
type tensor struct {
	name  string
	dtype DataType
	dims  []int64
	raw   []byte
}

func (t *tensor) marshal() []byte {
	b := make([]byte, 0, len(t.raw)+64)
	for _, d := range t.dims {
		b = appendVarint(b, 1, uint64(d))
	}
	b = appendVarint(b, 2, uint64(t.dtype))
	b = appendString(b, 8, t.name)
	return appendBytes(b, 9, t.raw)
}

func float32Raw(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func int64Raw(v []int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// Dim is one dimension of a graph input or output: an int (fixed) or a
// string (a named, dynamic dimension such as "batch_size").
type Dim any

// valueInfo is ValueInfoProto: name=1, type=2. TypeProto: tensor_type=1;
// TypeProto.Tensor: elem_type=1, shape=2; TensorShapeProto: dim=1;
// Dimension: dim_value=1, dim_param=2.
type valueInfo struct {
	name  string
	dtype DataType
	dims  []Dim
}

func (v *valueInfo) marshal() []byte {
	var shape []byte
	for _, d := range v.dims {
		var dim []byte
		switch d := d.(type) {
		case int:
			dim = appendVarint(dim, 1, uint64(d))
		case string:
			dim = appendString(dim, 2, d)
		default:
			panic("onnxbuild: a Dim is an int or a string")
		}
		shape = appendBytes(shape, 1, dim)
	}
	var tt []byte
	tt = appendVarint(tt, 1, uint64(v.dtype))
	tt = appendBytes(tt, 2, shape)
	var typ []byte
	typ = appendBytes(typ, 1, tt)
	var b []byte
	b = appendString(b, 1, v.name)
	return appendBytes(b, 2, typ)
}

// marshalGraph writes GraphProto: node=1, name=2, initializer=5, input=11,
// output=12.
func (g *Graph) marshal() []byte {
	size := 0
	for _, t := range g.inits {
		size += len(t.raw) + 64
	}
	b := make([]byte, 0, size+4096)
	for i := range g.nodes {
		b = appendBytes(b, 1, g.nodes[i].marshal())
	}
	b = appendString(b, 2, g.name)
	for i := range g.inits {
		b = appendBytes(b, 5, g.inits[i].marshal())
	}
	for i := range g.inputs {
		b = appendBytes(b, 11, g.inputs[i].marshal())
	}
	for i := range g.outputs {
		b = appendBytes(b, 12, g.outputs[i].marshal())
	}
	return b
}

// Marshal returns the ModelProto holding g: ir_version=1, producer_name=2,
// graph=7, opset_import=8 (OperatorSetIdProto: domain=1, version=2).
func (g *Graph) Marshal() []byte {
	gb := g.marshal()
	b := make([]byte, 0, len(gb)+64)
	b = appendVarint(b, 1, irVersion)
	b = appendString(b, 2, "vidscreen-onnxbuild")
	b = appendBytes(b, 7, gb)
	var op []byte
	op = appendString(op, 1, "")
	op = appendVarint(op, 2, Opset)
	return appendBytes(b, 8, op)
}
