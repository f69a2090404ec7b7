package tokenizer

import "unicode/utf8"

// A postProcessor adds the special tokens a model expects around one text
// or a pair ([CLS] A [SEP] B [SEP], <s> A </s></s> B </s>, ...) and sets the
// type ids.
type postProcessor interface {
	// added is the number of tokens process adds, which truncation
	// leaves room for.
	added(pair bool) int
	// process joins a and b (b may be nil) into out, which has room for
	// the result.
	process(a, b *Encoding, addSpecial bool, out *Encoding)
}

// joinPlain joins a pair without special tokens.
func joinPlain(a, b, out *Encoding) {
	out.appendRange(a, 0, a.Len())
	if b != nil {
		out.appendRange(b, 0, b.Len())
	}
}

// templatePiece is one element of a TemplateProcessing template: a
// sequence ("A" or "B") or a special token, with its type id.
type templatePiece struct {
	seq     string // "A" or "B"; empty for a special token
	special string // key into specials
	typeID  int
}

type specialTokens struct {
	ids    []int
	tokens []string
}

// templateProcessing is TemplateProcessing, the general form that BERT and
// most newer files use.
type templateProcessing struct {
	single, pair []templatePiece
	specials     map[string]specialTokens
}

func (p *templateProcessing) added(pair bool) int {
	t := p.single
	if pair {
		t = p.pair
	}
	n := 0
	for _, pc := range t {
		if pc.seq == "" {
			n += len(p.specials[pc.special].ids)
		}
	}
	return n
}

func (p *templateProcessing) process(a, b *Encoding, addSpecial bool, out *Encoding) {
	if !addSpecial {
		joinPlain(a, b, out)
		return
	}
	t := p.single
	if b != nil {
		t = p.pair
	}
	for _, pc := range t {
		switch pc.seq {
		case "":
			sp := p.specials[pc.special]
			for k, id := range sp.ids {
				out.push(id, pc.typeID, sp.tokens[k], [2]int{}, true)
			}
		case "A", "B":
			src := a
			if pc.seq == "B" {
				src = b
			}
			if src == nil {
				continue
			}
			from := out.Len()
			out.appendRange(src, 0, src.Len())
			for k := from; k < out.Len(); k++ {
				out.TypeIDs[k] = pc.typeID
			}
		}
	}
}

// bertProcessing is BertProcessing: [CLS] A [SEP] and [CLS] A [SEP] B [SEP],
// B's part with type id 1.
type bertProcessing struct {
	cls, sep   int
	clsT, sepT string
}

func (p *bertProcessing) added(pair bool) int {
	if pair {
		return 3
	}
	return 2
}

func (p *bertProcessing) process(a, b *Encoding, addSpecial bool, out *Encoding) {
	if !addSpecial {
		joinPlain(a, b, out)
		return
	}
	out.push(p.cls, 0, p.clsT, [2]int{}, true)
	out.appendRange(a, 0, a.Len())
	out.push(p.sep, 0, p.sepT, [2]int{}, true)
	if b != nil {
		from := out.Len()
		out.appendRange(b, 0, b.Len())
		out.push(p.sep, 1, p.sepT, [2]int{}, true)
		for k := from; k < out.Len(); k++ {
			out.TypeIDs[k] = 1
		}
	}
}

// robertaProcessing is RobertaProcessing: <s> A </s> and
// <s> A </s></s> B </s>, all type ids 0; with trim_offsets, offsets leave
// out the spaces that byte-level tokens carry.
type robertaProcessing struct {
	cls, sep       int
	clsT, sepT     string
	trimOffsets    bool
	addPrefixSpace bool
}

func (p *robertaProcessing) added(pair bool) int {
	if pair {
		return 4
	}
	return 2
}

func (p *robertaProcessing) process(a, b *Encoding, addSpecial bool, out *Encoding) {
	if p.trimOffsets {
		trimOffsets(a, p.addPrefixSpace)
		if b != nil {
			trimOffsets(b, p.addPrefixSpace)
		}
	}
	if !addSpecial {
		joinPlain(a, b, out)
		return
	}
	out.push(p.cls, 0, p.clsT, [2]int{}, true)
	out.appendRange(a, 0, a.Len())
	out.push(p.sep, 0, p.sepT, [2]int{}, true)
	if b != nil {
		out.push(p.sep, 0, p.sepT, [2]int{}, true)
		from := out.Len()
		out.appendRange(b, 0, b.Len())
		out.push(p.sep, 0, p.sepT, [2]int{}, true)
		for k := from; k < out.Len(); k++ {
			out.TypeIDs[k] = 0
		}
	}
}

// byteLevelProcessing is the ByteLevel post-processor: offsets trimming
// only.
type byteLevelProcessing struct{ trimOffsets, addPrefixSpace bool }

func (p *byteLevelProcessing) added(bool) int { return 0 }

func (p *byteLevelProcessing) process(a, b *Encoding, addSpecial bool, out *Encoding) {
	p.trim(a, b)
	joinPlain(a, b, out)
}

func (p *byteLevelProcessing) trim(a, b *Encoding) {
	if p.trimOffsets {
		trimOffsets(a, p.addPrefixSpace)
		if b != nil {
			trimOffsets(b, p.addPrefixSpace)
		}
	}
}

// trimOffsets moves token offsets past the spaces that byte-level tokens
// begin or end with (the reference's process_offsets): "Ġworld" covers
// "world", not " world". A first token keeps the one space that
// add_prefix_space put there.
func trimOffsets(e *Encoding, addPrefixSpace bool) {
	spaceRune := byteLevel.toRune[' ']
	isSp := func(r rune) bool { return r == spaceRune || isWhitespace(r) }
	for i, tok := range e.Tokens {
		lead := 0
		for _, r := range tok {
			if !isSp(r) {
				break
			}
			lead++
		}
		trail := 0
		for j := len(tok); j > 0; {
			r, size := utf8.DecodeLastRuneInString(tok[:j])
			if !isSp(r) {
				break
			}
			trail++
			j -= size
		}
		off := &e.Offsets[i]
		if lead > 0 {
			if (i == 0 || off[0] == 0) && addPrefixSpace && lead == 1 {
				lead = 0
			}
			off[0] = min(off[0]+lead, off[1])
		}
		if trail > 0 && off[1] >= trail {
			off[1] = max(off[1]-trail, off[0])
		}
	}
}

// sequenceProcessing is Sequence, as real files use it (Llama 3: ByteLevel
// then TemplateProcessing): the ByteLevel steps trim offsets of each text,
// then at most one processor adds special tokens and joins the pair, as
// the reference's process_encodings chain does.
type sequenceProcessing struct {
	trimmers []*byteLevelProcessing
	joiner   postProcessor // nil: join plainly
}

func (s *sequenceProcessing) added(pair bool) int {
	if s.joiner == nil {
		return 0
	}
	return s.joiner.added(pair)
}

func (s *sequenceProcessing) process(a, b *Encoding, addSpecial bool, out *Encoding) {
	for _, t := range s.trimmers {
		t.trim(a, b)
	}
	if s.joiner == nil {
		joinPlain(a, b, out)
		return
	}
	s.joiner.process(a, b, addSpecial, out)
}
