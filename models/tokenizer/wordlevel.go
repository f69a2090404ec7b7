package tokenizer

// wordLevel is the WordLevel model: each piece is one vocabulary entry or
// the unknown token.
type wordLevel struct {
	v   *vocabulary
	unk int32
}

func (m *wordLevel) vocab() *vocabulary { return m.v }

func (m *wordLevel) tokenize(s []byte, out []token, _ *scratch) []token {
	if len(s) == 0 {
		return out
	}
	id, ok := m.v.ids[string(s)]
	if !ok {
		return append(out, token{m.unk, 0, int32(len(s))})
	}
	return append(out, token{int32(id), 0, int32(len(s))})
}
