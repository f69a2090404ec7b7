package tokenizer

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// Tokenizer encodes text into model inputs and decodes ids back into text,
// as the HF tokenizers library does for the same tokenizer.json. Encode,
// EncodePair, EncodeBatch and Decode are safe for concurrent use;
// SetTruncation and SetPadding are not safe to call concurrently with
// them.
type Tokenizer struct {
	name string // file name, for errors

	normalizer normalizer
	pre        preTokenizer
	model      model
	post       postProcessor
	decoder    decoder

	added       []*addedToken
	addedByText map[string]*addedToken
	addedByID   map[int]*addedToken
	rawAdded    *addedMatcher // tokens matched in raw input
	normAdded   *addedMatcher // tokens matched in normalized text
	normKey     map[*addedToken]string

	// eowSuffix is the BPE end-of-word suffix ("</w>"), which Decode turns
	// into spaces when the file's decoder does not (CLIP files).
	eowSuffix string

	// cleanUp is tokenizer_config.json's clean_up_tokenization_spaces,
	// nil where no such file or field was read.
	cleanUp *bool

	// idTokens is every id's token, added tokens over the model's;
	// idKnown says which ids have one.
	idTokens []string
	idKnown  []bool

	truncation *Truncation
	padding    *Padding

	states sync.Pool // *encodeState
}

// encodeState is the scratch space of one encoding, reused through a pool
// so that encoding allocates little more than its result.
type encodeState struct {
	orig, text, tmp normText
	ar              arena
	rawSplits       []addedSplit
	normSplits      []addedSplit
	pieces, pieces2 []piece
	toks            []token
	sc              scratch
	a, b            Encoding // the texts before post-processing
}

func (t *Tokenizer) state() *encodeState {
	if st, ok := t.states.Get().(*encodeState); ok {
		return st
	}
	return &encodeState{}
}

// VocabSize is the number of ids, added tokens included.
func (t *Tokenizer) VocabSize() int { return len(t.idTokens) }

// indexTokens fills idTokens and idKnown once the model and the added
// tokens are read.
func (t *Tokenizer) indexTokens() {
	v := t.model.vocab()
	n := len(v.tokens)
	for id := range t.addedByID {
		n = max(n, id+1)
	}
	t.idTokens = make([]string, n)
	t.idKnown = make([]bool, n)
	for tok, id := range v.ids {
		if id >= 0 {
			t.idTokens[id], t.idKnown[id] = tok, true
		}
	}
	for id, a := range t.addedByID {
		if id >= 0 {
			t.idTokens[id], t.idKnown[id] = a.content, true
		}
	}
}

// TokenToID returns the id of a token (an added token or a vocabulary
// entry, as it appears in the vocabulary, e.g. "##ing" or "cat</w>").
func (t *Tokenizer) TokenToID(tok string) (int, bool) {
	if a, ok := t.addedByText[tok]; ok {
		return a.id, true
	}
	id, ok := t.model.vocab().ids[tok]
	return id, ok
}

// IDToToken returns the token of an id.
func (t *Tokenizer) IDToToken(id int) (string, bool) {
	if id < 0 || id >= len(t.idTokens) || !t.idKnown[id] {
		return "", false
	}
	return t.idTokens[id], true
}

// SetTruncation sets (nil: removes) truncation, replacing the file's.
func (t *Tokenizer) SetTruncation(tr *Truncation) {
	if tr != nil {
		c := *tr
		tr = &c
	}
	t.truncation = tr
}

// SetPadding sets (nil: removes) padding, replacing the file's.
func (t *Tokenizer) SetPadding(p *Padding) {
	if p != nil {
		c := *p
		p = &c
	}
	t.padding = p
}

// Truncation returns a copy of the truncation settings, nil if none.
func (t *Tokenizer) Truncation() *Truncation {
	if t.truncation == nil {
		return nil
	}
	c := *t.truncation
	return &c
}

// Padding returns a copy of the padding settings, nil if none.
func (t *Tokenizer) Padding() *Padding {
	if t.padding == nil {
		return nil
	}
	c := *t.padding
	return &c
}

// Encode encodes one text. With addSpecial the post-processor's special
// tokens are added ([CLS] ... [SEP] for BERT). Truncation and padding apply
// as set.
func (t *Tokenizer) Encode(text string, addSpecial bool) (Encoding, error) {
	return t.encodeOne(text, nil, addSpecial)
}

// EncodePair encodes two texts as one input (question and answer, query
// and passage), the second with type id 1 where the model uses type ids.
func (t *Tokenizer) EncodePair(a, b string, addSpecial bool) (Encoding, error) {
	return t.encodeOne(a, &b, addSpecial)
}

// encodeOne encodes a text or pair and pads it on its own.
func (t *Tokenizer) encodeOne(text string, pair *string, addSpecial bool) (Encoding, error) {
	reserve := 0
	if p := t.padding; p != nil && p.Length > 0 {
		reserve = p.padLength(0)
	}
	e, err := t.encode(text, pair, addSpecial, reserve)
	if err != nil {
		return Encoding{}, err
	}
	if t.padding != nil {
		t.padding.pad(e, t.padding.padLength(e.Len()))
	}
	return *e, nil
}

// batchChunk is how many texts a worker of EncodeBatch takes at a time:
// enough to amortise the hand-off, few enough to balance the load.
const batchChunk = 16

// EncodeBatch encodes texts in parallel on up to GOMAXPROCS goroutines.
// The result is the same as encoding each text in order; padding, when
// set, pads every encoding to the longest of the batch (or the fixed
// length). It stops at the first error or when ctx is done.
func (t *Tokenizer) EncodeBatch(ctx context.Context, texts []string, addSpecial bool) ([]Encoding, error) {
	out := make([]Encoding, len(texts))
	reserve := 0
	if p := t.padding; p != nil && p.Length > 0 {
		reserve = p.padLength(0)
	}
	workers := min(runtime.GOMAXPROCS(0), (len(texts)+batchChunk-1)/batchChunk)
	var next atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error {
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				from := int(next.Add(batchChunk)) - batchChunk
				if from >= len(texts) {
					return nil
				}
				for i := from; i < min(from+batchChunk, len(texts)); i++ {
					e, err := t.encode(texts[i], nil, addSpecial, reserve)
					if err != nil {
						return fmt.Errorf("text %d: %w", i, err)
					}
					out[i] = *e
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if t.padding != nil {
		longest := 0
		for i := range out {
			longest = max(longest, out[i].Len())
		}
		n := t.padding.padLength(longest)
		for i := range out {
			t.padding.pad(&out[i], n)
		}
	}
	return out, nil
}

// encode runs the pipeline without padding: added tokens, normalizer,
// pre-tokenizer and model on each text, then truncation and
// post-processing. The result has room for reserve tokens, so that padding
// to a known length does not reallocate.
func (t *Tokenizer) encode(text string, pair *string, addSpecial bool, reserve int) (*Encoding, error) {
	st := t.state()
	defer t.states.Put(st)
	a := &st.a
	t.encodeSequence(st, text, 0, a)
	var b *Encoding
	if pair != nil {
		b = &st.b
		t.encodeSequence(st, *pair, 1, b)
	}
	added := 0
	if addSpecial && t.post != nil {
		added = t.post.added(b != nil)
	}
	if tr := t.truncation; tr != nil {
		maxLen := tr.MaxLength - added
		if maxLen < 0 {
			return nil, fmt.Errorf("%s: truncation max length %d is less than the %d special tokens", t.name, tr.MaxLength, added)
		}
		if err := truncate(a, b, tr, maxLen); err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
	}
	n := a.Len() + added
	if b != nil {
		n += b.Len()
	}
	out := newEncoding(max(n, reserve))
	if t.post != nil {
		t.post.process(a, b, addSpecial, out)
	} else {
		joinPlain(a, b, out)
	}
	return out, nil
}

// encodeSequence tokenizes one text with the given type id into e.
func (t *Tokenizer) encodeSequence(st *encodeState, text string, typeID int, e *Encoding) {
	e.reset()
	st.orig.setOriginal(text, 0)
	st.rawSplits = t.rawAdded.split(st.orig.s, contentOf, st.rawSplits[:0])
	for _, rs := range st.rawSplits {
		if rs.tok != nil {
			sp := st.orig.spanOf(rs.start, rs.end)
			e.push(rs.tok.id, typeID, rs.tok.content, [2]int{int(sp.start), int(sp.end)}, false)
			continue
		}
		st.text.reset()
		st.text.appendFrom(&st.orig, rs.start, rs.end)
		if t.normalizer != nil {
			t.normalizer.normalize(&st.text, &st.tmp)
		}
		st.normSplits = t.normAdded.split(st.text.s, t.normKeyOf, st.normSplits[:0])
		for _, ns := range st.normSplits {
			if ns.tok != nil {
				sp := st.text.spanOf(ns.start, ns.end)
				e.push(ns.tok.id, typeID, ns.tok.content, [2]int{int(sp.start), int(sp.end)}, false)
				continue
			}
			t.tokenizeText(st, e, ns.start, ns.end, typeID)
		}
	}
}

// tokenizeText pre-tokenizes bytes [i, j) of st.text and runs the model on
// each piece.
func (t *Tokenizer) tokenizeText(st *encodeState, e *Encoding, i, j, typeID int) {
	st.ar.reset()
	st.pieces = append(st.pieces[:0], piece{s: st.text.s[i:j], align: st.text.align[i:j]})
	if t.pre != nil {
		st.pieces2 = t.pre.preTokenize(st.pieces, st.pieces2[:0], &st.ar)
		st.pieces, st.pieces2 = st.pieces2, st.pieces
	}
	for _, pc := range st.pieces {
		st.toks = t.model.tokenize(pc.s, st.toks[:0], &st.sc)
		for _, tk := range st.toks {
			tok := t.idTokens[tk.id]
			off := [2]int{int(pc.align[tk.start].start), int(pc.align[tk.end-1].end)}
			e.push(int(tk.id), typeID, tok, off, false)
		}
	}
}

func contentOf(a *addedToken) string { return a.content }

func (t *Tokenizer) normKeyOf(a *addedToken) string { return t.normKey[a] }

// Decode turns ids back into text. With skipSpecial, special added tokens
// ([CLS], <|endoftext|>, padding) are left out. Unknown ids are skipped.
func (t *Tokenizer) Decode(ids []int, skipSpecial bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if a, ok := t.addedByID[id]; ok {
			if skipSpecial && a.special {
				continue
			}
			toks = append(toks, a.content)
			continue
		}
		if tok, ok := t.IDToToken(id); ok {
			toks = append(toks, tok)
		}
	}
	var s string
	if t.decoder != nil {
		s = strings.Join(t.decoder.decode(toks), "")
	} else {
		s = strings.Join(toks, " ")
	}
	cleanUp := t.cleanUp != nil && *t.cleanUp
	if t.eowSuffix != "" {
		// As transformers' CLIPTokenizerFast does on top of the file's
		// ByteLevel decoder: word ends become spaces, ends trimmed.
		// Then transformers' clean_up_tokenization_spaces, on by default.
		s = strings.TrimSpace(strings.ReplaceAll(s, t.eowSuffix, " "))
		cleanUp = t.cleanUp == nil || *t.cleanUp
	}
	if cleanUp {
		s = cleanupTokenization(s)
	}
	return s
}

// Normalize returns text as the file's normalizer leaves it (text itself
// when the file has none), as the reference's normalizer.normalize_str
// does: added tokens are not cut out first. It shows what a tokenizer
// sees, for example where a reference implementation normalizes
// differently.
func (t *Tokenizer) Normalize(text string) string {
	if t.normalizer == nil {
		return text
	}
	var nt, tmp normText
	nt.setOriginal(text, 0)
	t.normalizer.normalize(&nt, &tmp)
	return string(nt.s)
}
