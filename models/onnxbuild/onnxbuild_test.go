package onnxbuild

import (
	"bytes"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// fields splits one protobuf message by field number: varints in the first
// map, length-delimited values in the second.
func fields(t *testing.T, b []byte) (map[protowire.Number][]uint64, map[protowire.Number][][]byte) {
	t.Helper()
	vs := map[protowire.Number][]uint64{}
	bs := map[protowire.Number][][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				t.Fatal(protowire.ParseError(m))
			}
			vs[num] = append(vs[num], v)
			b = b[m:]
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				t.Fatal(protowire.ParseError(m))
			}
			bs[num] = append(bs[num], v)
			b = b[m:]
		case protowire.Fixed32Type:
			_, m := protowire.ConsumeFixed32(b)
			b = b[m:]
		default:
			t.Fatalf("unexpected wire type %d", typ)
		}
	}
	return vs, bs
}

// TestModelProtoLayout reads a built model back field by field, with the
// numbers of onnx.proto3.
func TestModelProtoLayout(t *testing.T) {
	t.Parallel()
	model := NewEncoder(TinyBERT).Graph().Marshal()
	vs, bs := fields(t, model)
	if vs[1][0] != irVersion {
		t.Fatalf("ir_version %v", vs[1])
	}
	if len(bs[8]) != 1 {
		t.Fatalf("%d opset imports", len(bs[8]))
	}
	ov, ob := fields(t, bs[8][0])
	if ov[2][0] != Opset || len(ob[1][0]) != 0 {
		t.Fatalf("opset import: version %v domain %q", ov[2], ob[1])
	}
	_, gb := fields(t, bs[7][0])
	name := func(msg []byte) string { _, f := fields(t, msg); return string(f[1][0]) }
	var ins, outs []string
	for _, v := range gb[11] {
		ins = append(ins, name(v))
	}
	for _, v := range gb[12] {
		outs = append(outs, name(v))
	}
	if want := []string{"input_ids", "attention_mask", "token_type_ids"}; !equal(ins, want) {
		t.Fatalf("inputs %v, want %v", ins, want)
	}
	if want := []string{"last_hidden_state"}; !equal(outs, want) {
		t.Fatalf("outputs %v, want %v", outs, want)
	}
	// The word embedding initializer: dims 30522 x 32, FLOAT, raw data.
	found := false
	for _, init := range gb[5] {
		iv, ib := fields(t, init)
		if bytes.HasPrefix(ib[8][0], []byte("embeddings.word")) {
			found = true
			if iv[1][0] != 30522 || iv[1][1] != 32 || iv[2][0] != uint64(Float) || len(ib[9][0]) != 4*30522*32 {
				t.Fatalf("embeddings.word: dims %v type %v raw %d bytes", iv[1], iv[2], len(ib[9][0]))
			}
		}
	}
	if !found {
		t.Fatal("no embeddings.word initializer")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestModelsAreDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	a := NewEncoder(TinyBERT).Graph().Marshal()
	b := NewEncoder(TinyBERT).Graph().Marshal()
	if !bytes.Equal(a, b) {
		t.Fatal("the same config built twice differs")
	}
	cfg := TinyBERT
	cfg.Seed++
	if bytes.Equal(a, NewEncoder(cfg).Graph().Marshal()) {
		t.Fatal("another seed gives the same model")
	}
}

func TestReferenceLayers(t *testing.T) {
	t.Parallel()
	t.Run("layer norm gives zero mean and unit variance", func(t *testing.T) {
		x := Mat{Rows: 1, Cols: 4, V: []float32{1, 2, 3, 10}}
		ln := LayerNorm{Gamma: []float32{1, 1, 1, 1}, Beta: make([]float32, 4), Eps: 0}
		y := ln.apply(x)
		var mean, vr float64
		for _, v := range y.V {
			mean += float64(v) / 4
		}
		for _, v := range y.V {
			vr += (float64(v) - mean) * (float64(v) - mean) / 4
		}
		if math.Abs(mean) > 1e-6 || math.Abs(vr-1) > 1e-5 {
			t.Fatalf("mean %g variance %g", mean, vr)
		}
	})
	t.Run("the first row under a causal mask sees only itself", func(t *testing.T) {
		w := newWeightSource(1)
		a := w.attention(8, 2)
		x := Mat{Rows: 3, Cols: 8, V: w.uniform(24, 1)}
		out, _, _ := a.attend(x, x, causal(0), Mat{}, Mat{})
		first := Mat{Rows: 1, Cols: 8, V: x.Row(0)}
		want := a.O.apply(a.V.apply(first))
		for k := range want.V {
			if math.Abs(float64(out.V[k]-want.V[k])) > 1e-6 {
				t.Fatalf("row 0: %v, want %v", out.Row(0), want.V)
			}
		}
	})
	t.Run("gelu matches its values at 0, 1 and -1", func(t *testing.T) {
		y := gelu(Mat{Rows: 1, Cols: 3, V: []float32{0, 1, -1}})
		// GELU(1) = 0.8413447 (Hendrycks and Gimpel 2016, x * Phi(x)).
		want := []float32{0, 0.8413447, -0.15865526}
		for i := range want {
			if math.Abs(float64(y.V[i]-want[i])) > 1e-6 {
				t.Fatalf("gelu %v, want %v", y.V, want)
			}
		}
	})
}
