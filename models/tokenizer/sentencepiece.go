package tokenizer

import (
	"fmt"
	"math"
	"os"
	"unicode/utf8"
)

// SentencePiece piece types (ModelProto.SentencePiece.Type in
// sentencepiece_model.proto).
const (
	PieceNormal      = 1
	PieceUnknown     = 2
	PieceControl     = 3
	PieceUserDefined = 4
	PieceUnused      = 5
	PieceByte        = 6
)

// SentencePiece model types (TrainerSpec.ModelType).
const (
	SPMUnigram = 1
	SPMBPE     = 2
	SPMWord    = 3
	SPMChar    = 4
)

// SentencePiece is one entry of a SentencePiece model's vocabulary; its
// index in SentencePieceModel.Pieces is its id.
type SentencePiece struct {
	Piece string
	Score float32
	Type  int
}

// SentencePieceModel is what a spiece.model (a serialized ModelProto)
// holds that tokenizing needs: the pieces, the trainer fields that name the
// algorithm and the special ids, and the normalizer spec. Models such as
// T5 and SigLIP v1 ship only this file, no tokenizer.json.
type SentencePieceModel struct {
	Pieces       []SentencePiece
	ModelType    int
	UnkID        int
	BOSID        int
	EOSID        int
	PadID        int
	ByteFallback bool
	// TreatWhitespaceAsSuffix puts "▁" after words instead of before; no
	// converter of transformers supports it, nor does this loader.
	TreatWhitespaceAsSuffix bool

	NormalizerName         string
	PrecompiledCharsmap    []byte
	AddDummyPrefix         bool
	RemoveExtraWhitespaces bool
	EscapeWhitespaces      bool
}

// ReadSentencePiece reads and parses a spiece.model file.
func ReadSentencePiece(path string) (*SentencePieceModel, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sentencepiece: %w", err)
	}
	return ParseSentencePiece(b, path)
}

// ParseSentencePiece decodes a serialized ModelProto; name (the file's
// path) is in every error, with the field that was wrong. Fields that
// tokenizing does not use are skipped; the proto's defaults apply to the
// fields a file leaves out (unk 0, bos 1, eos 2, pad -1, Unigram, and
// add_dummy_prefix, remove_extra_whitespaces and escape_whitespaces true).
func ParseSentencePiece(b []byte, name string) (*SentencePieceModel, error) {
	m := &SentencePieceModel{
		ModelType: SPMUnigram, UnkID: 0, BOSID: 1, EOSID: 2, PadID: -1,
		AddDummyPrefix: true, RemoveExtraWhitespaces: true, EscapeWhitespaces: true,
	}
	fail := func(field string, err error) error {
		return fmt.Errorf("%s: sentencepiece ModelProto %s: %w", name, field, err)
	}
	r := &protoReader{b: b}
	for !r.done() {
		num, wire, err := r.key()
		if err != nil {
			return nil, fail("field key", err)
		}
		switch num {
		case 1:
			if err := expect("pieces", wire, wireBytes); err != nil {
				return nil, fail(fmt.Sprintf("pieces[%d]", len(m.Pieces)), err)
			}
			sub, err := r.bytes()
			if err != nil {
				return nil, fail(fmt.Sprintf("pieces[%d]", len(m.Pieces)), err)
			}
			p, field, err := parsePiece(sub)
			if err != nil {
				return nil, fail(fmt.Sprintf("pieces[%d].%s", len(m.Pieces), field), err)
			}
			m.Pieces = append(m.Pieces, p)
		case 2:
			if err := expect("trainer_spec", wire, wireBytes); err != nil {
				return nil, fail("trainer_spec", err)
			}
			sub, err := r.bytes()
			if err != nil {
				return nil, fail("trainer_spec", err)
			}
			if field, err := m.parseTrainer(sub); err != nil {
				return nil, fail("trainer_spec."+field, err)
			}
		case 3:
			if err := expect("normalizer_spec", wire, wireBytes); err != nil {
				return nil, fail("normalizer_spec", err)
			}
			sub, err := r.bytes()
			if err != nil {
				return nil, fail("normalizer_spec", err)
			}
			if field, err := m.parseNormalizer(sub); err != nil {
				return nil, fail("normalizer_spec."+field, err)
			}
		default:
			if err := r.skip(wire); err != nil {
				return nil, fail(fmt.Sprintf("field %d", num), err)
			}
		}
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: sentencepiece ModelProto %w", name, err)
	}
	return m, nil
}

func parsePiece(b []byte) (SentencePiece, string, error) {
	p := SentencePiece{Type: PieceNormal}
	r := &protoReader{b: b}
	for !r.done() {
		num, wire, err := r.key()
		if err != nil {
			return p, "key", err
		}
		switch num {
		case 1:
			if err := expect("piece", wire, wireBytes); err != nil {
				return p, "piece", err
			}
			s, err := r.bytes()
			if err != nil {
				return p, "piece", err
			}
			if !utf8.Valid(s) {
				return p, "piece", fmt.Errorf("%q is not UTF-8", s)
			}
			p.Piece = string(s)
		case 2:
			if err := expect("score", wire, wireFixed32); err != nil {
				return p, "score", err
			}
			u, err := r.fixed32()
			if err != nil {
				return p, "score", err
			}
			p.Score = math.Float32frombits(u)
			if math.IsNaN(float64(p.Score)) || math.IsInf(float64(p.Score), 0) {
				return p, "score", fmt.Errorf("%v is not finite", p.Score)
			}
		case 3:
			if err := expect("type", wire, wireVarint); err != nil {
				return p, "type", err
			}
			v, err := r.varint()
			if err != nil {
				return p, "type", err
			}
			if v < PieceNormal || v > PieceByte {
				return p, "type", fmt.Errorf("unknown piece type %d", v)
			}
			p.Type = int(v)
		default:
			if err := r.skip(wire); err != nil {
				return p, fmt.Sprintf("field %d", num), err
			}
		}
	}
	return p, "", nil
}

// parseTrainer reads the TrainerSpec fields that change tokenizing.
func (m *SentencePieceModel) parseTrainer(b []byte) (string, error) {
	r := &protoReader{b: b}
	ints := map[int]struct {
		name string
		dst  *int
	}{3: {"model_type", &m.ModelType}, 40: {"unk_id", &m.UnkID}, 41: {"bos_id", &m.BOSID}, 42: {"eos_id", &m.EOSID}, 43: {"pad_id", &m.PadID}}
	bools := map[int]struct {
		name string
		dst  *bool
	}{35: {"byte_fallback", &m.ByteFallback}, 24: {"treat_whitespace_as_suffix", &m.TreatWhitespaceAsSuffix}}
	for !r.done() {
		num, wire, err := r.key()
		if err != nil {
			return "key", err
		}
		if f, ok := ints[num]; ok {
			if err := expect(f.name, wire, wireVarint); err != nil {
				return f.name, err
			}
			v, err := r.varint()
			if err != nil {
				return f.name, err
			}
			if *f.dst, err = int32Of(v); err != nil {
				return f.name, err
			}
			continue
		}
		if f, ok := bools[num]; ok {
			if *f.dst, err = r.boolField(f.name, wire); err != nil {
				return f.name, err
			}
			continue
		}
		if err := r.skip(wire); err != nil {
			return fmt.Sprintf("field %d", num), err
		}
	}
	return "", nil
}

// parseNormalizer reads the NormalizerSpec.
func (m *SentencePieceModel) parseNormalizer(b []byte) (string, error) {
	r := &protoReader{b: b}
	bools := map[int]struct {
		name string
		dst  *bool
	}{3: {"add_dummy_prefix", &m.AddDummyPrefix}, 4: {"remove_extra_whitespaces", &m.RemoveExtraWhitespaces}, 5: {"escape_whitespaces", &m.EscapeWhitespaces}}
	for !r.done() {
		num, wire, err := r.key()
		if err != nil {
			return "key", err
		}
		switch num {
		case 1, 2:
			field := map[int]string{1: "name", 2: "precompiled_charsmap"}[num]
			if err := expect(field, wire, wireBytes); err != nil {
				return field, err
			}
			s, err := r.bytes()
			if err != nil {
				return field, err
			}
			if num == 1 {
				m.NormalizerName = string(s)
			} else {
				m.PrecompiledCharsmap = s
			}
			continue
		}
		if f, ok := bools[num]; ok {
			if *f.dst, err = r.boolField(f.name, wire); err != nil {
				return f.name, err
			}
			continue
		}
		if err := r.skip(wire); err != nil {
			return fmt.Sprintf("field %d", num), err
		}
	}
	return "", nil
}

// check refuses a model whose ids point outside its pieces.
func (m *SentencePieceModel) check() error {
	if len(m.Pieces) == 0 {
		return fmt.Errorf("pieces: none")
	}
	for _, f := range []struct {
		name string
		id   int
	}{{"unk_id", m.UnkID}, {"bos_id", m.BOSID}, {"eos_id", m.EOSID}, {"pad_id", m.PadID}} {
		if f.id < -1 || f.id >= len(m.Pieces) {
			return fmt.Errorf("trainer_spec.%s: %d is outside the %d pieces", f.name, f.id, len(m.Pieces))
		}
	}
	if m.UnkID < 0 {
		return fmt.Errorf("trainer_spec.unk_id: -1, but SentencePiece needs an unknown piece")
	}
	if m.Pieces[m.UnkID].Type != PieceUnknown {
		return fmt.Errorf("trainer_spec.unk_id: piece %d (%q) is not of type UNKNOWN", m.UnkID, m.Pieces[m.UnkID].Piece)
	}
	return nil
}
