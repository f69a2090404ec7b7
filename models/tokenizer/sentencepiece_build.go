package tokenizer

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// SentencePieceOptions are what a tokenizer class adds to a spiece.model:
// the model file says how to split text, the class says which special
// tokens go around it.
type SentencePieceOptions struct {
	// AddEOS appends the eos piece when special tokens are asked for, as
	// T5Tokenizer and SiglipTokenizer do.
	AddEOS bool
	// NoDummyPrefix turns the model's add_dummy_prefix off and keeps a
	// leading space (the text is taken as following earlier text), as
	// SiglipTokenizer and T5Tokenizer(legacy=False) run SentencePiece: they
	// put the "▁" in front themselves.
	NoDummyPrefix bool
	// ExtraIDs adds T5Tokenizer's sentinel tokens "<extra_id_0>" ...
	// "<extra_id_{n-1}>" after the pieces, in reverse (the last id is
	// "<extra_id_0>"), as special tokens; T5's tokenizer_config.json asks
	// for 100.
	ExtraIDs int
}

// LoadSentencePiece reads a spiece.model and builds its tokenizer; the
// tokenizer_config.json beside it, when there is one, gives
// clean_up_tokenization_spaces as it does beside a tokenizer.json.
func LoadSentencePiece(path string, opts SentencePieceOptions) (*Tokenizer, error) {
	m, err := ReadSentencePiece(path)
	if err != nil {
		return nil, err
	}
	t, err := m.Tokenizer(path, opts)
	if err != nil {
		return nil, err
	}
	if err := t.readConfig(path); err != nil {
		return nil, err
	}
	return t, nil
}

// Tokenizer builds from a Unigram SentencePiece model the pipeline that
// transformers' convert_slow_tokenizer builds for it (and that T5's
// published tokenizer.json holds): the Precompiled normalizer from the
// model's charsmap, whitespace handling as remove_extra_whitespaces and
// add_dummy_prefix say, a Metaspace pre-tokenizer, the Unigram model with
// the pieces' scores and byte fallback, CONTROL and UNKNOWN pieces as
// special tokens, and a Metaspace decoder. It goes through the same
// loader as a tokenizer.json, so a SentencePiece model and its converted
// tokenizer.json share every line of the encoding code. name is the
// model's path, for errors.
func (m *SentencePieceModel) Tokenizer(name string, opts SentencePieceOptions) (*Tokenizer, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s: sentencepiece "+format, append([]any{name}, a...)...)
	}
	switch m.ModelType {
	case SPMUnigram:
	case SPMBPE:
		return nil, fail("trainer_spec.model_type: BPE models are not supported (only Unigram, as T5 and SigLIP use)")
	case SPMWord, SPMChar:
		return nil, fail("trainer_spec.model_type: %s models are not supported (only Unigram)", map[int]string{SPMWord: "WORD", SPMChar: "CHAR"}[m.ModelType])
	default:
		return nil, fail("trainer_spec.model_type: unknown type %d", m.ModelType)
	}
	if m.TreatWhitespaceAsSuffix {
		return nil, fail("trainer_spec.treat_whitespace_as_suffix: true is not supported")
	}
	if !m.EscapeWhitespaces {
		return nil, fail("normalizer_spec.escape_whitespaces: false is not supported")
	}
	if len(m.PrecompiledCharsmap) == 0 && m.NormalizerName != "" && m.NormalizerName != "identity" {
		return nil, fail("normalizer_spec.precompiled_charsmap: empty, but normalizer %q needs it", m.NormalizerName)
	}
	if opts.AddEOS && m.EOSID < 0 {
		return nil, fail("trainer_spec.eos_id: -1, but the tokenizer appends eos")
	}

	type obj = map[string]any
	vocab := make([][2]any, len(m.Pieces))
	var added []obj
	for i, p := range m.Pieces {
		vocab[i] = [2]any{p.Piece, float64(p.Score)}
		if p.Type == PieceControl || p.Type == PieceUnknown || p.Type == PieceUserDefined {
			added = append(added, obj{"id": i, "content": p.Piece, "special": p.Type != PieceUserDefined,
				"single_word": false, "lstrip": false, "rstrip": false, "normalized": false})
		}
	}

	if opts.ExtraIDs < 0 {
		return nil, fail("extra ids: %d is negative", opts.ExtraIDs)
	}
	for i := opts.ExtraIDs - 1; i >= 0; i-- {
		tok := fmt.Sprintf("<extra_id_%d>", i)
		vocab = append(vocab, [2]any{tok, 0.0})
		added = append(added, obj{"id": len(vocab) - 1, "content": tok, "special": true,
			"single_word": false, "lstrip": false, "rstrip": false, "normalized": false})
	}

	var norms []any
	if len(m.PrecompiledCharsmap) > 0 {
		norms = append(norms, obj{"type": "Precompiled", "precompiled_charsmap": base64.StdEncoding.EncodeToString(m.PrecompiledCharsmap)})
	}
	dummy := m.AddDummyPrefix && !opts.NoDummyPrefix
	metaspace := obj{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": true}
	if dummy {
		metaspace["prepend_scheme"] = "always"
	}
	var pre any = metaspace
	switch {
	case m.RemoveExtraWhitespaces && dummy:
		// SentencePiece drops leading and trailing spaces and keeps one of
		// a run: splitting on whitespace before Metaspace does all three, as
		// T5's converted tokenizer.json does.
		pre = obj{"type": "Sequence", "pretokenizers": []any{obj{"type": "WhitespaceSplit"}, metaspace}}
	case m.RemoveExtraWhitespaces:
		// Without the dummy prefix the text is taken as continuing earlier
		// text: a leading space stays (it becomes "▁"), runs shrink to
		// one space and trailing spaces go.
		norms = append(norms,
			obj{"type": "Replace", "pattern": obj{"Regex": " {2,}"}, "content": " "},
			obj{"type": "Strip", "strip_left": false, "strip_right": true})
	}
	var normalizer any
	switch len(norms) {
	case 0:
	case 1:
		normalizer = norms[0]
	default:
		normalizer = obj{"type": "Sequence", "normalizers": norms}
	}

	var post any
	if opts.AddEOS {
		eos := m.Pieces[m.EOSID].Piece
		post = obj{"type": "TemplateProcessing",
			"single": []any{obj{"Sequence": obj{"id": "A", "type_id": 0}}, obj{"SpecialToken": obj{"id": eos, "type_id": 0}}},
			"pair": []any{obj{"Sequence": obj{"id": "A", "type_id": 0}}, obj{"SpecialToken": obj{"id": eos, "type_id": 0}},
				obj{"Sequence": obj{"id": "B", "type_id": 0}}, obj{"SpecialToken": obj{"id": eos, "type_id": 0}}},
			"special_tokens": obj{eos: obj{"id": eos, "ids": []int{m.EOSID}, "tokens": []string{eos}}}}
	}
	var dec any = obj{"type": "Metaspace", "replacement": "▁", "prepend_scheme": metaspace["prepend_scheme"], "split": true}
	if m.ByteFallback {
		dec = obj{"type": "Sequence", "decoders": []any{obj{"type": "ByteFallback"}, dec}}
	}
	doc := obj{
		"version": "1.0", "truncation": nil, "padding": nil,
		"added_tokens":   added,
		"normalizer":     normalizer,
		"pre_tokenizer":  pre,
		"post_processor": post,
		"decoder":        dec,
		"model":          obj{"type": "Unigram", "unk_id": m.UnkID, "vocab": vocab, "byte_fallback": m.ByteFallback},
	}
	if added == nil {
		doc["added_tokens"] = []any{}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fail("building the pipeline: %w", err)
	}
	t, err := fromJSON(b, name)
	if err != nil {
		return nil, fmt.Errorf("%s: sentencepiece pipeline: %w", name, err)
	}
	return t, nil
}
