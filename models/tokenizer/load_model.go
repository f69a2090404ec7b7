package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

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
	if names := modelFields(typ); names != nil {
		if err := l.fields(raw, fmt.Sprintf("model %q", typ), names...); err != nil {
			return nil, err
		}
	}
	switch typ {
	case "WordPiece", "WordLevel", "BPE":
		var vocab map[string]int
		if err := json.Unmarshal(head.Vocab, &vocab); err != nil {
			return nil, l.bad("model", typ, fmt.Errorf("vocab: %w", err))
		}
		for tok, id := range vocab {
			if err := checkID(id); err != nil {
				return nil, l.bad("model", typ, fmt.Errorf("vocab entry %q: %w", tok, err))
			}
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
		m.trie = newByteTrie(ids)
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

// modelFields are the fields of each model type (the reference's serde
// form; "?" marks those that may be null); nil for a type not supported.
func modelFields(typ string) []string {
	switch typ {
	case "BPE":
		return []string{"vocab", "merges", "dropout?", "unk_token?", "continuing_subword_prefix?", "end_of_word_suffix?",
			"fuse_unk", "byte_fallback", "ignore_merges"}
	case "WordPiece":
		return []string{"vocab", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word"}
	case "WordLevel":
		return []string{"vocab", "unk_token"}
	case "Unigram":
		return []string{"vocab", "unk_id?", "byte_fallback"}
	}
	return nil
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
