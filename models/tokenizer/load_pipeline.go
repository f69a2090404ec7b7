package tokenizer

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func (l loader) normalizer(c *component) (normalizer, error) {
	switch c.Type {
	case "BertNormalizer":
		if err := l.check(c, "normalizer", "clean_text", "handle_chinese_chars", "strip_accents?", "lowercase"); err != nil {
			return nil, err
		}
		var v struct {
			CleanText          *bool `json:"clean_text"`
			HandleChineseChars *bool `json:"handle_chinese_chars"`
			StripAccents       *bool `json:"strip_accents"`
			Lowercase          *bool `json:"lowercase"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		n := &bertNormalizer{cleanText: orTrue(v.CleanText), handleCJK: orTrue(v.HandleChineseChars), lowercase: orTrue(v.Lowercase)}
		// strip_accents null means "as lowercase" (BERT uncased strips
		// accents, cased keeps them).
		n.stripAccents = n.lowercase
		if v.StripAccents != nil {
			n.stripAccents = *v.StripAccents
		}
		return n, nil
	case "NFC":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return unicodeForm{norm.NFC}, nil
	case "NFD":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return unicodeForm{norm.NFD}, nil
	case "NFKC":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return unicodeForm{norm.NFKC}, nil
	case "NFKD":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return unicodeForm{norm.NFKD}, nil
	case "Lowercase":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return lowercaseNormalizer{}, nil
	case "Nmt":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return nmtNormalizer{}, nil
	case "StripAccents":
		if err := l.check(c, "normalizer"); err != nil {
			return nil, err
		}
		return stripAccentsNormalizer{}, nil
	case "Strip":
		if err := l.check(c, "normalizer", "strip_left", "strip_right"); err != nil {
			return nil, err
		}
		var v struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		return stripNormalizer{v.Left, v.Right}, nil
	case "Prepend":
		if err := l.check(c, "normalizer", "prepend"); err != nil {
			return nil, err
		}
		var v struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		return prependNormalizer{v.Prepend}, nil
	case "Replace":
		if err := l.check(c, "normalizer", "pattern", "content"); err != nil {
			return nil, err
		}
		var v struct {
			Pattern pattern `json:"pattern"`
			Content string  `json:"content"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		m, err := v.Pattern.matcher()
		if err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		return replaceNormalizer{m, v.Content}, nil
	case "Precompiled":
		if err := l.check(c, "normalizer", "precompiled_charsmap"); err != nil {
			return nil, err
		}
		var v struct {
			Charsmap string `json:"precompiled_charsmap"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		p, err := newPrecompiled(v.Charsmap)
		if err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		return p, nil
	case "Sequence":
		if err := l.check(c, "normalizer", "normalizers"); err != nil {
			return nil, err
		}
		var v struct {
			Normalizers []*component `json:"normalizers"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		var seq sequenceNormalizer
		for _, sub := range v.Normalizers {
			n, err := l.normalizer(sub)
			if err != nil {
				return nil, err
			}
			seq = append(seq, n)
		}
		return seq, nil
	}
	return nil, l.unsupported("normalizer", c.Type)
}

func orTrue(b *bool) bool { return b == nil || *b }

func (l loader) behavior(s string) (behavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated", "":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, l.unsupported("split behavior", s)
}

func (l loader) preTokenizer(c *component) (preTokenizer, error) {
	switch c.Type {
	case "BertPreTokenizer":
		if err := l.check(c, "pre_tokenizer"); err != nil {
			return nil, err
		}
		return bertPreTokenizer{}, nil
	case "Whitespace":
		if err := l.check(c, "pre_tokenizer"); err != nil {
			return nil, err
		}
		// `\w+|[^\w\s]+`, keeping the matches (Invert, Removed).
		return splitPreTokenizer{scan: scanWhitespaceWords, behavior: removed, invert: true}, nil
	case "WhitespaceSplit":
		if err := l.check(c, "pre_tokenizer"); err != nil {
			return nil, err
		}
		return splitPreTokenizer{scan: scanRuns(isWhitespace), behavior: removed}, nil
	case "CharDelimiterSplit":
		if err := l.check(c, "pre_tokenizer", "delimiter"); err != nil {
			return nil, err
		}
		var v struct {
			Delimiter string `json:"delimiter"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("pre_tokenizer", c.Type, err)
		}
		d, size := utf8.DecodeRuneInString(v.Delimiter)
		if size == 0 || size != len(v.Delimiter) {
			return nil, fmt.Errorf("%s: pre_tokenizer CharDelimiterSplit delimiter %q is not one character", l.name, v.Delimiter)
		}
		return splitPreTokenizer{scan: scanRunes(func(r rune) bool { return r == d }), behavior: removed}, nil
	case "Punctuation":
		if err := l.check(c, "pre_tokenizer", "behavior"); err != nil {
			return nil, err
		}
		var v struct {
			Behavior string `json:"behavior"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("pre_tokenizer", c.Type, err)
		}
		b, err := l.behavior(v.Behavior)
		if err != nil {
			return nil, err
		}
		return splitPreTokenizer{scan: scanRunes(isBertPunctuation), behavior: b}, nil
	case "Digits":
		if err := l.check(c, "pre_tokenizer", "individual_digits"); err != nil {
			return nil, err
		}
		var v struct {
			Individual bool `json:"individual_digits"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("pre_tokenizer", c.Type, err)
		}
		isDigit := func(r rune) bool { return r < 0x80 && r >= '0' && r <= '9' || r >= 0x80 && isNumber(r) }
		if v.Individual {
			return splitPreTokenizer{scan: scanRunes(isDigit), behavior: isolated}, nil
		}
		return splitPreTokenizer{scan: scanRunes(isDigit), behavior: contiguous}, nil
	case "Split":
		if err := l.check(c, "pre_tokenizer", "pattern", "behavior", "invert"); err != nil {
			return nil, err
		}
		var v struct {
			Pattern  pattern `json:"pattern"`
			Behavior string  `json:"behavior"`
			Invert   bool    `json:"invert"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("pre_tokenizer", c.Type, err)
		}
		b, err := l.behavior(v.Behavior)
		if err != nil {
			return nil, err
		}
		p := splitPreTokenizer{behavior: b, invert: v.Invert}
		if v.Pattern.Regex != nil {
			if sc, ok := scanners[*v.Pattern.Regex]; ok {
				p.scan = sc
				return p, nil
			}
		}
		m, err := v.Pattern.matcher()
		if err != nil {
			return nil, fmt.Errorf("%s: pre_tokenizer Split pattern not supported (no hand-written scanner, and Go's regexp rejects it): %w", l.name, err)
		}
		p.scan = m.find
		return p, nil
	case "ByteLevel":
		if err := l.check(c, "pre_tokenizer", "add_prefix_space", "trim_offsets", "use_regex"); err != nil {
			return nil, err
		}
		var v struct {
			AddPrefixSpace bool  `json:"add_prefix_space"`
			UseRegex       *bool `json:"use_regex"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("pre_tokenizer", c.Type, err)
		}
		return byteLevelPreTokenizer{addPrefixSpace: v.AddPrefixSpace, useRegex: orTrue(v.UseRegex)}, nil
	case "Metaspace":
		m, err := l.metaspace(c)
		if err != nil {
			return nil, err
		}
		return m, nil
	case "Sequence":
		if err := l.check(c, "pre_tokenizer", "pretokenizers"); err != nil {
			return nil, err
		}
		var v struct {
			PreTokenizers []*component `json:"pretokenizers"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("pre_tokenizer", c.Type, err)
		}
		var seq sequencePreTokenizer
		for _, sub := range v.PreTokenizers {
			p, err := l.preTokenizer(sub)
			if err != nil {
				return nil, err
			}
			seq = append(seq, p)
		}
		return seq, nil
	}
	return nil, l.unsupported("pre_tokenizer", c.Type)
}

func (l loader) metaspace(c *component) (metaspacePreTokenizer, error) {
	var v struct {
		Replacement    string  `json:"replacement"`
		PrependScheme  *string `json:"prepend_scheme"`
		AddPrefixSpace *bool   `json:"add_prefix_space"`
		Split          *bool   `json:"split"`
	}
	// add_prefix_space and str_rep are the fields of files from before
	// prepend_scheme and split existed.
	if err := l.fields(c.raw, fmt.Sprintf("Metaspace %q", c.Type), "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"); err != nil {
		return metaspacePreTokenizer{}, err
	}
	if err := json.Unmarshal(c.raw, &v); err != nil {
		return metaspacePreTokenizer{}, l.bad(c.Type, c.Type, err)
	}
	if v.Replacement == "" {
		v.Replacement = "\u2581"
	}
	r, size := utf8.DecodeRuneInString(v.Replacement)
	if size != len(v.Replacement) {
		return metaspacePreTokenizer{}, fmt.Errorf("%s: Metaspace replacement %q is not one character", l.name, v.Replacement)
	}
	m := metaspacePreTokenizer{replacement: r, repl: v.Replacement, split: orTrue(v.Split)}
	switch {
	case v.PrependScheme != nil:
		switch *v.PrependScheme {
		case "always":
			m.prepend = prependAlways
		case "first":
			m.prepend = prependFirst
		case "never":
			m.prepend = prependNever
		default:
			return m, l.unsupported("Metaspace prepend_scheme", *v.PrependScheme)
		}
	case v.AddPrefixSpace != nil && !*v.AddPrefixSpace:
		// Files from before prepend_scheme existed.
		m.prepend = prependNever
	}
	return m, nil
}

func (l loader) postProcessor(c *component, t *Tokenizer) (postProcessor, error) {
	pairOf := func(raw json.RawMessage) (string, int, error) {
		var v [2]json.RawMessage
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", 0, err
		}
		var s string
		var id int
		if err := json.Unmarshal(v[0], &s); err != nil {
			return "", 0, err
		}
		if err := json.Unmarshal(v[1], &id); err != nil {
			return "", 0, err
		}
		return s, id, nil
	}
	switch c.Type {
	case "BertProcessing", "RobertaProcessing":
		names := []string{"sep", "cls"}
		if c.Type == "RobertaProcessing" {
			names = append(names, "trim_offsets", "add_prefix_space")
		}
		if err := l.check(c, "post_processor", names...); err != nil {
			return nil, err
		}
		var v struct {
			Sep            json.RawMessage `json:"sep"`
			Cls            json.RawMessage `json:"cls"`
			TrimOffsets    *bool           `json:"trim_offsets"`
			AddPrefixSpace *bool           `json:"add_prefix_space"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("post_processor", c.Type, err)
		}
		sepT, sep, err := pairOf(v.Sep)
		if err != nil {
			return nil, l.bad("post_processor", c.Type, fmt.Errorf("sep: %w", err))
		}
		clsT, cls, err := pairOf(v.Cls)
		if err != nil {
			return nil, l.bad("post_processor", c.Type, fmt.Errorf("cls: %w", err))
		}
		if c.Type == "BertProcessing" {
			return &bertProcessing{cls: cls, sep: sep, clsT: clsT, sepT: sepT}, nil
		}
		return &robertaProcessing{cls: cls, sep: sep, clsT: clsT, sepT: sepT,
			trimOffsets: orTrue(v.TrimOffsets), addPrefixSpace: orTrue(v.AddPrefixSpace)}, nil
	case "ByteLevel":
		if err := l.check(c, "post_processor", "add_prefix_space", "trim_offsets", "use_regex"); err != nil {
			return nil, err
		}
		var v struct {
			TrimOffsets    *bool `json:"trim_offsets"`
			AddPrefixSpace *bool `json:"add_prefix_space"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("post_processor", c.Type, err)
		}
		return &byteLevelProcessing{trimOffsets: orTrue(v.TrimOffsets), addPrefixSpace: orTrue(v.AddPrefixSpace)}, nil
	case "TemplateProcessing":
		if err := l.check(c, "post_processor", "single", "pair", "special_tokens"); err != nil {
			return nil, err
		}
		var v struct {
			Single        []map[string]json.RawMessage `json:"single"`
			Pair          []map[string]json.RawMessage `json:"pair"`
			SpecialTokens map[string]json.RawMessage   `json:"special_tokens"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("post_processor", c.Type, err)
		}
		p := &templateProcessing{specials: map[string]specialTokens{}}
		for k, raw := range v.SpecialTokens {
			if err := l.fields(raw, fmt.Sprintf("post_processor %q special_tokens %q", c.Type, k), "id", "ids", "tokens"); err != nil {
				return nil, err
			}
			var s struct {
				IDs    []int    `json:"ids"`
				Tokens []string `json:"tokens"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, l.bad("post_processor", c.Type, fmt.Errorf("special token %q: %w", k, err))
			}
			if len(s.IDs) != len(s.Tokens) {
				return nil, l.bad("post_processor", c.Type, fmt.Errorf("special token %q: %d ids but %d tokens", k, len(s.IDs), len(s.Tokens)))
			}
			p.specials[k] = specialTokens{ids: s.IDs, tokens: s.Tokens}
		}
		var err error
		if p.single, err = l.template(v.Single, p.specials); err != nil {
			return nil, err
		}
		if p.pair, err = l.template(v.Pair, p.specials); err != nil {
			return nil, err
		}
		return p, nil
	case "Sequence":
		if err := l.check(c, "post_processor", "processors"); err != nil {
			return nil, err
		}
		var v struct {
			Processors []*component `json:"processors"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("post_processor", c.Type, err)
		}
		seq := &sequenceProcessing{}
		for _, sub := range v.Processors {
			p, err := l.postProcessor(sub, t)
			if err != nil {
				return nil, err
			}
			switch p := p.(type) {
			case *byteLevelProcessing:
				seq.trimmers = append(seq.trimmers, p)
			default:
				if seq.joiner != nil {
					return nil, fmt.Errorf("%s: post_processor Sequence with more than one processor that adds tokens is not supported", l.name)
				}
				seq.joiner = p
			}
		}
		return seq, nil
	}
	return nil, l.unsupported("post_processor", c.Type)
}

func (l loader) template(items []map[string]json.RawMessage, specials map[string]specialTokens) ([]templatePiece, error) {
	var out []templatePiece
	for i, it := range items {
		var v struct {
			ID     string `json:"id"`
			TypeID int    `json:"type_id"`
		}
		if len(it) != 1 {
			return nil, l.bad("post_processor", "TemplateProcessing", fmt.Errorf("template item %d has %d fields, want one of Sequence and SpecialToken", i, len(it)))
		}
		for k, raw := range it {
			if err := l.fields(raw, fmt.Sprintf("post_processor \"TemplateProcessing\" template item %d %s", i, k), "id", "type_id"); err != nil {
				return nil, err
			}
		}
		if raw, ok := it["Sequence"]; ok {
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, l.bad("post_processor", "TemplateProcessing", err)
			}
			if v.ID != "A" && v.ID != "B" {
				return nil, l.bad("post_processor", "TemplateProcessing", fmt.Errorf("sequence id %q is not A or B", v.ID))
			}
			out = append(out, templatePiece{seq: v.ID, typeID: v.TypeID})
			continue
		}
		if raw, ok := it["SpecialToken"]; ok {
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, l.bad("post_processor", "TemplateProcessing", err)
			}
			if _, ok := specials[v.ID]; !ok {
				return nil, l.bad("post_processor", "TemplateProcessing", fmt.Errorf("special token %q is not in special_tokens", v.ID))
			}
			out = append(out, templatePiece{special: v.ID, typeID: v.TypeID})
			continue
		}
		return nil, l.bad("post_processor", "TemplateProcessing", fmt.Errorf("template item %v is neither Sequence nor SpecialToken", it))
	}
	return out, nil
}

func (l loader) decoder(c *component) (decoder, error) {
	switch c.Type {
	case "WordPiece":
		if err := l.check(c, "decoder", "prefix", "cleanup"); err != nil {
			return nil, err
		}
		var v struct {
			Prefix  *string `json:"prefix"`
			Cleanup *bool   `json:"cleanup"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("decoder", c.Type, err)
		}
		d := wordPieceDecoder{prefix: "##", cleanup: orTrue(v.Cleanup)}
		if v.Prefix != nil {
			d.prefix = *v.Prefix
		}
		return d, nil
	case "ByteLevel":
		if err := l.check(c, "decoder", "add_prefix_space", "trim_offsets", "use_regex"); err != nil {
			return nil, err
		}
		return byteLevelDecoder{}, nil
	case "BPEDecoder":
		if err := l.check(c, "decoder", "suffix"); err != nil {
			return nil, err
		}
		var v struct {
			Suffix *string `json:"suffix"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("decoder", c.Type, err)
		}
		d := bpeDecoder{suffix: "</w>"}
		if v.Suffix != nil {
			d.suffix = *v.Suffix
		}
		return d, nil
	case "Metaspace":
		m, err := l.metaspace(c)
		if err != nil {
			return nil, err
		}
		return metaspaceDecoder{replacement: m.replacement, prepend: m.prepend}, nil
	case "ByteFallback":
		if err := l.check(c, "decoder"); err != nil {
			return nil, err
		}
		return byteFallbackDecoder{}, nil
	case "Fuse":
		if err := l.check(c, "decoder"); err != nil {
			return nil, err
		}
		return fuseDecoder{}, nil
	case "Strip":
		if err := l.check(c, "decoder", "content", "start", "stop"); err != nil {
			return nil, err
		}
		var v struct {
			Content string `json:"content"`
			Start   int    `json:"start"`
			Stop    int    `json:"stop"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("decoder", c.Type, err)
		}
		return stripDecoder{v.Content, v.Start, v.Stop}, nil
	case "Replace":
		if err := l.check(c, "decoder", "pattern", "content"); err != nil {
			return nil, err
		}
		var v struct {
			Pattern pattern `json:"pattern"`
			Content string  `json:"content"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("decoder", c.Type, err)
		}
		if v.Pattern.String == nil {
			return nil, l.unsupported("decoder Replace pattern", "Regex")
		}
		return replaceDecoder{*v.Pattern.String, v.Content}, nil
	case "Sequence":
		if err := l.check(c, "decoder", "decoders"); err != nil {
			return nil, err
		}
		var v struct {
			Decoders []*component `json:"decoders"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("decoder", c.Type, err)
		}
		var seq sequenceDecoder
		for _, sub := range v.Decoders {
			d, err := l.decoder(sub)
			if err != nil {
				return nil, err
			}
			seq = append(seq, d)
		}
		return seq, nil
	}
	return nil, l.unsupported("decoder", c.Type)
}
