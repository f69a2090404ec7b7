package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Load reads a HF tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	return fromJSON(data, path)
}

// FromJSON reads the contents of a tokenizer.json file.
func FromJSON(data []byte) (*Tokenizer, error) {
	return fromJSON(data, "tokenizer.json")
}

// component is any tagged part of the file: {"type": "...", ...}.
type component struct {
	Type string `json:"type"`
	raw  json.RawMessage
}

func (c *component) UnmarshalJSON(b []byte) error {
	c.raw = append(c.raw[:0], b...)
	var t struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	c.Type = t.Type
	return nil
}

type fileJSON struct {
	AddedTokens []struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    *component      `json:"normalizer"`
	PreTokenizer  *component      `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor *component      `json:"post_processor"`
	Decoder       *component      `json:"decoder"`
	Truncation    *struct {
		Direction string `json:"direction"`
		MaxLength int    `json:"max_length"`
		Strategy  string `json:"strategy"`
		Stride    int    `json:"stride"`
	} `json:"truncation"`
	Padding *struct {
		Strategy        json.RawMessage `json:"strategy"`
		Direction       string          `json:"direction"`
		PadToMultipleOf *int            `json:"pad_to_multiple_of"`
		PadID           int             `json:"pad_id"`
		PadTypeID       int             `json:"pad_type_id"`
		PadToken        string          `json:"pad_token"`
	} `json:"padding"`
}

// loader carries the file name into the component builders, for errors.
type loader struct{ name string }

func (l loader) unsupported(kind, typ string) error {
	return fmt.Errorf("%s: %s type %q not supported", l.name, kind, typ)
}

func (l loader) bad(kind, typ string, err error) error {
	return fmt.Errorf("%s: %s %q: %w", l.name, kind, typ, err)
}

func fromJSON(data []byte, path string) (*Tokenizer, error) {
	l := loader{name: filepath.Base(path)}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", l.name, err)
	}
	t := &Tokenizer{
		name:        l.name,
		addedByText: map[string]*addedToken{},
		addedByID:   map[int]*addedToken{},
		normKey:     map[*addedToken]string{},
	}
	var err error
	if f.Normalizer != nil {
		if t.normalizer, err = l.normalizer(f.Normalizer); err != nil {
			return nil, err
		}
	}
	if f.PreTokenizer != nil {
		if t.pre, err = l.preTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	if len(f.Model) == 0 || string(f.Model) == "null" {
		return nil, fmt.Errorf("%s: no model", l.name)
	}
	if t.model, err = l.model(f.Model, t); err != nil {
		return nil, err
	}
	for _, a := range f.AddedTokens {
		at := &addedToken{id: a.ID, content: a.Content, singleWord: a.SingleWord, lstrip: a.LStrip,
			rstrip: a.RStrip, normalized: a.Normalized, special: a.Special}
		t.added = append(t.added, at)
		t.addedByText[at.content] = at
		t.addedByID[at.id] = at
	}
	t.indexTokens()
	var raw, normalized []*addedToken
	for _, a := range t.added {
		if a.normalized {
			key := a.content
			if t.normalizer != nil {
				var nt, tmp normText
				nt.setOriginal(a.content, 0)
				t.normalizer.normalize(&nt, &tmp)
				key = string(nt.s)
			}
			t.normKey[a] = key
			normalized = append(normalized, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.rawAdded = newAddedMatcher(raw, contentOf)
	t.normAdded = newAddedMatcher(normalized, t.normKeyOf)
	if f.PostProcessor != nil {
		if t.post, err = l.postProcessor(f.PostProcessor, t); err != nil {
			return nil, err
		}
	}
	if f.Decoder != nil {
		if t.decoder, err = l.decoder(f.Decoder); err != nil {
			return nil, err
		}
	}
	if b, ok := t.model.(*bpe); ok && b.suffix != "" && !hasBPEDecoder(t.decoder) {
		t.eowSuffix = b.suffix
	}
	if tr := f.Truncation; tr != nil {
		t.truncation = &Truncation{MaxLength: tr.MaxLength, Stride: tr.Stride}
		switch tr.Strategy {
		case "", "LongestFirst":
		case "OnlyFirst":
			t.truncation.Strategy = OnlyFirst
		case "OnlySecond":
			t.truncation.Strategy = OnlySecond
		default:
			return nil, l.unsupported("truncation strategy", tr.Strategy)
		}
		if t.truncation.Direction, err = l.direction(tr.Direction); err != nil {
			return nil, err
		}
	}
	if p := f.Padding; p != nil {
		t.padding = &Padding{PadID: p.PadID, PadTypeID: p.PadTypeID, PadToken: p.PadToken}
		if p.PadToMultipleOf != nil {
			t.padding.PadToMultipleOf = *p.PadToMultipleOf
		}
		if t.padding.Direction, err = l.direction(p.Direction); err != nil {
			return nil, err
		}
		var fixed struct {
			Fixed *int `json:"Fixed"`
		}
		var name string
		switch {
		case json.Unmarshal(p.Strategy, &name) == nil && name == "BatchLongest":
		case json.Unmarshal(p.Strategy, &fixed) == nil && fixed.Fixed != nil:
			t.padding.Length = *fixed.Fixed
		default:
			return nil, l.unsupported("padding strategy", string(p.Strategy))
		}
	}
	return t, nil
}

func hasBPEDecoder(d decoder) bool {
	switch d := d.(type) {
	case bpeDecoder:
		return true
	case sequenceDecoder:
		for _, x := range d {
			if hasBPEDecoder(x) {
				return true
			}
		}
	}
	return false
}

func (l loader) direction(s string) (Direction, error) {
	switch s {
	case "", "Right":
		return Right, nil
	case "Left":
		return Left, nil
	}
	return Right, l.unsupported("direction", s)
}

// pattern is Split's and Replace's {"String": s} or {"Regex": r}.
type pattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func (p pattern) matcher() (matcher, error) {
	switch {
	case p.String != nil:
		return newMatcher(*p.String, "", false)
	case p.Regex != nil:
		return newMatcher("", *p.Regex, true)
	}
	return nil, errors.New("pattern has neither String nor Regex")
}

func (l loader) normalizer(c *component) (normalizer, error) {
	switch c.Type {
	case "BertNormalizer":
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
		return unicodeForm{norm.NFC}, nil
	case "NFD":
		return unicodeForm{norm.NFD}, nil
	case "NFKC":
		return unicodeForm{norm.NFKC}, nil
	case "NFKD":
		return unicodeForm{norm.NFKD}, nil
	case "Lowercase":
		return lowercaseNormalizer{}, nil
	case "StripAccents":
		return stripAccentsNormalizer{}, nil
	case "Strip":
		var v struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		return stripNormalizer{v.Left, v.Right}, nil
	case "Prepend":
		var v struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("normalizer", c.Type, err)
		}
		return prependNormalizer{v.Prepend}, nil
	case "Replace":
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
		return bertPreTokenizer{}, nil
	case "Whitespace":
		return splitPreTokenizer{scan: scanWhitespaceWords, behavior: isolated}, nil
	case "WhitespaceSplit":
		return splitPreTokenizer{scan: scanRuns(isWhitespace), behavior: removed}, nil
	case "Punctuation":
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
		p.scan = scanMatcher(m)
		return p, nil
	case "ByteLevel":
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

func (l loader) model(raw json.RawMessage, t *Tokenizer) (model, error) {
	var head struct {
		Type                    string          `json:"type"`
		Vocab                   json.RawMessage `json:"vocab"`
		Merges                  json.RawMessage `json:"merges"`
		UnkToken                *string         `json:"unk_token"`
		UnkID                   *int            `json:"unk_id"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
		MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
		FuseUnk                 *bool           `json:"fuse_unk"`
		ByteFallback            bool            `json:"byte_fallback"`
		IgnoreMerges            bool            `json:"ignore_merges"`
		Dropout                 *float64        `json:"dropout"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%s: model: %w", l.name, err)
	}
	typ := head.Type
	if typ == "" { // files from before the tag existed
		switch {
		case len(head.Merges) > 0:
			typ = "BPE"
		case bytes.HasPrefix(bytes.TrimSpace(head.Vocab), []byte("[")):
			typ = "Unigram"
		case head.ContinuingSubwordPrefix != nil:
			typ = "WordPiece"
		default:
			typ = "WordLevel"
		}
	}
	switch typ {
	case "WordPiece", "WordLevel", "BPE":
		var vocab map[string]int
		if err := json.Unmarshal(head.Vocab, &vocab); err != nil {
			return nil, l.bad("model", typ, fmt.Errorf("vocab: %w", err))
		}
		v := newVocabulary(vocab)
		unk := int32(-1)
		if head.UnkToken != nil {
			id, ok := vocab[*head.UnkToken]
			if ok {
				unk = int32(id)
			} else if typ != "BPE" {
				return nil, l.bad("model", typ, fmt.Errorf("unk_token %q is not in the vocabulary", *head.UnkToken))
			}
		}
		switch typ {
		case "WordPiece":
			if unk < 0 {
				return nil, l.bad("model", typ, errors.New("no unk_token"))
			}
			m := &wordPiece{v: v, unk: unk, prefix: "##", maxChars: 100}
			if head.ContinuingSubwordPrefix != nil {
				m.prefix = *head.ContinuingSubwordPrefix
			}
			if head.MaxInputCharsPerWord != nil {
				m.maxChars = *head.MaxInputCharsPerWord
			}
			for tok := range vocab {
				m.maxLen = max(m.maxLen, len(tok))
			}
			return m, nil
		case "WordLevel":
			if unk < 0 {
				return nil, l.bad("model", typ, errors.New("no unk_token"))
			}
			return &wordLevel{v: v, unk: unk}, nil
		}
		if head.Dropout != nil && *head.Dropout > 0 {
			return nil, l.bad("model", typ, fmt.Errorf("dropout %v is for training; encoding with it is not supported", *head.Dropout))
		}
		m := &bpe{v: v, unk: unk, fuseUnk: head.FuseUnk != nil && *head.FuseUnk, byteFallback: head.ByteFallback,
			ignoreMerges: head.IgnoreMerges, cache: newWordCache(bpeCacheCapacity)}
		if head.ContinuingSubwordPrefix != nil {
			m.prefix = *head.ContinuingSubwordPrefix
		}
		if head.EndOfWordSuffix != nil {
			m.suffix = *head.EndOfWordSuffix
		}
		for b := range 256 {
			m.byteIDs[b] = -1
			if id, ok := vocab[byteTokenName(byte(b))]; ok {
				m.byteIDs[b] = int32(id)
			}
		}
		merges, err := l.merges(head.Merges, vocab, m.prefix)
		if err != nil {
			return nil, err
		}
		m.merges = merges
		return m, nil
	case "Unigram":
		var pieces [][2]json.RawMessage
		if err := json.Unmarshal(head.Vocab, &pieces); err != nil {
			return nil, l.bad("model", typ, fmt.Errorf("vocab: %w", err))
		}
		ids := make(map[string]int, len(pieces))
		m := &unigram{scores: make([]float64, len(pieces)), byteFallback: head.ByteFallback, fuseUnk: true, unk: -1}
		minScore := math.Inf(1)
		for i, p := range pieces {
			var s string
			if err := json.Unmarshal(p[0], &s); err != nil {
				return nil, l.bad("model", typ, fmt.Errorf("vocab entry %d: %w", i, err))
			}
			if err := json.Unmarshal(p[1], &m.scores[i]); err != nil {
				return nil, l.bad("model", typ, fmt.Errorf("vocab entry %d score: %w", i, err))
			}
			if _, dup := ids[s]; !dup {
				ids[s] = i
			}
			m.maxLen = max(m.maxLen, len(s))
			minScore = min(minScore, m.scores[i])
		}
		m.v = &vocabulary{ids: ids, tokens: make([]string, len(pieces))}
		for s, id := range ids {
			m.v.tokens[id] = s
		}
		if head.UnkID == nil {
			return nil, l.bad("model", typ, errors.New("no unk_id; encoding text outside the vocabulary would fail"))
		}
		if *head.UnkID < 0 || *head.UnkID >= len(pieces) {
			return nil, l.bad("model", typ, fmt.Errorf("unk_id %d out of range", *head.UnkID))
		}
		m.unk = int32(*head.UnkID)
		m.unkScore = minScore - unkPenalty
		for b := range 256 {
			m.byteIDs[b] = -1
			if id, ok := ids[byteTokenName(byte(b))]; ok {
				m.byteIDs[b] = int32(id)
			}
		}
		return m, nil
	}
	return nil, l.unsupported("model", typ)
}

// bpeCacheCapacity is the reference's default BPE cache size (10,000
// words) raised tenfold: a screening run sees far more distinct words, and
// an entry costs well under 200 bytes.
const bpeCacheCapacity = 100_000

// merges reads the merge list, as "a b" strings or ["a", "b"] pairs.
func (l loader) merges(raw json.RawMessage, vocab map[string]int, prefix string) (map[[2]int32]merge, error) {
	var list []json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, l.bad("model", "BPE", fmt.Errorf("merges: %w", err))
		}
	}
	out := make(map[[2]int32]merge, len(list))
	for rank, item := range list {
		var a, b string
		var s string
		var pair []string
		if err := json.Unmarshal(item, &s); err == nil {
			var ok bool
			a, b, ok = strings.Cut(s, " ")
			if !ok {
				return nil, l.bad("model", "BPE", fmt.Errorf("merge %d %q is not two tokens", rank, s))
			}
		} else if err := json.Unmarshal(item, &pair); err == nil && len(pair) == 2 {
			a, b = pair[0], pair[1]
		} else {
			return nil, l.bad("model", "BPE", fmt.Errorf("merge %d: %s", rank, item))
		}
		ia, okA := vocab[a]
		ib, okB := vocab[b]
		merged := a + strings.TrimPrefix(b, prefix)
		im, okM := vocab[merged]
		if !okA || !okB || !okM {
			return nil, l.bad("model", "BPE", fmt.Errorf("merge %d (%q, %q): token not in the vocabulary", rank, a, b))
		}
		key := [2]int32{int32(ia), int32(ib)}
		if _, dup := out[key]; !dup {
			out[key] = merge{rank: int32(rank), id: int32(im)}
		}
	}
	return out, nil
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
		var v struct {
			TrimOffsets    *bool `json:"trim_offsets"`
			AddPrefixSpace *bool `json:"add_prefix_space"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("post_processor", c.Type, err)
		}
		return &byteLevelProcessing{trimOffsets: orTrue(v.TrimOffsets), addPrefixSpace: orTrue(v.AddPrefixSpace)}, nil
	case "TemplateProcessing":
		var v struct {
			Single        []map[string]json.RawMessage `json:"single"`
			Pair          []map[string]json.RawMessage `json:"pair"`
			SpecialTokens map[string]struct {
				ID     string   `json:"id"`
				IDs    []int    `json:"ids"`
				Tokens []string `json:"tokens"`
			} `json:"special_tokens"`
		}
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return nil, l.bad("post_processor", c.Type, err)
		}
		p := &templateProcessing{specials: map[string]specialTokens{}}
		for k, s := range v.SpecialTokens {
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
	for _, it := range items {
		var v struct {
			ID     string `json:"id"`
			TypeID int    `json:"type_id"`
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
		return byteLevelDecoder{}, nil
	case "BPEDecoder":
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
		return byteFallbackDecoder{}, nil
	case "Fuse":
		return fuseDecoder{}, nil
	case "Strip":
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
