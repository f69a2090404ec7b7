package tokenizer

import (
	"encoding/binary"
	"math"
)

// MarshalBinary writes the model as a ModelProto with the fields
// ParseSentencePiece reads: pieces, model_type, byte_fallback,
// treat_whitespace_as_suffix, the four special ids, and the NormalizerSpec.
// Tests and fixture builders use it to make spiece.model files (a real
// file holds more training fields, which tokenizing does not read).
func (m *SentencePieceModel) MarshalBinary() ([]byte, error) {
	var out []byte
	for _, p := range m.Pieces {
		var sub []byte
		sub = appendBytesField(sub, 1, []byte(p.Piece))
		sub = appendKey(sub, 2, wireFixed32)
		sub = binary.LittleEndian.AppendUint32(sub, math.Float32bits(p.Score))
		if p.Type != PieceNormal {
			sub = appendVarintField(sub, 3, uint64(p.Type))
		}
		out = appendBytesField(out, 1, sub)
	}
	var tr []byte
	tr = appendVarintField(tr, 3, uint64(m.ModelType))
	tr = appendVarintField(tr, 24, boolVarint(m.TreatWhitespaceAsSuffix))
	tr = appendVarintField(tr, 35, boolVarint(m.ByteFallback))
	for i, id := range []int{m.UnkID, m.BOSID, m.EOSID, m.PadID} {
		tr = appendVarintField(tr, 40+i, uint64(int64(id)))
	}
	out = appendBytesField(out, 2, tr)
	var n []byte
	if m.NormalizerName != "" {
		n = appendBytesField(n, 1, []byte(m.NormalizerName))
	}
	if len(m.PrecompiledCharsmap) > 0 {
		n = appendBytesField(n, 2, m.PrecompiledCharsmap)
	}
	n = appendVarintField(n, 3, boolVarint(m.AddDummyPrefix))
	n = appendVarintField(n, 4, boolVarint(m.RemoveExtraWhitespaces))
	n = appendVarintField(n, 5, boolVarint(m.EscapeWhitespaces))
	out = appendBytesField(out, 3, n)
	return out, nil
}

func boolVarint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func appendKey(b []byte, num, wire int) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(wire))
}

func appendVarintField(b []byte, num int, v uint64) []byte {
	return binary.AppendUvarint(appendKey(b, num, wireVarint), v)
}

func appendBytesField(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(appendKey(b, num, wireBytes), uint64(len(v)))
	return append(b, v...)
}
