package models

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
)

// TextEmbedder maps texts to unit vectors of Dim values: BGE for questions,
// MPNet to confirm near-duplicates.
type TextEmbedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dim() int
}

// TextEncoder runs a BERT-like encoder (text_embed, dup_confirm) and pools
// its last_hidden_state into L2-normalised sentence vectors.
type TextEncoder struct {
	sess    *Session
	tok     Tokenizer
	pooling Pooling
	maxLen  int
	// MaxBatch caps rows per run (default 32).
	MaxBatch int
	pad      int
	out      string
	dim      int
}

// defaultEncoderMaxLen is BERT's max_position_embeddings (512).
const defaultEncoderMaxLen = 512

// NewTextEncoder wraps an encoder session. maxLen 0 means 512.
func NewTextEncoder(sess *Session, tok Tokenizer, pooling Pooling, maxLen int) (*TextEncoder, error) {
	if err := encoderSignature.err(sess); err != nil {
		return nil, err
	}
	if pooling != PoolCLS && pooling != PoolMean {
		return nil, fmt.Errorf("pooling %q: want cls or mean", pooling)
	}
	if maxLen <= 0 {
		maxLen = defaultEncoderMaxLen
	}
	e := &TextEncoder{sess: sess, tok: tok, pooling: pooling, maxLen: maxLen, MaxBatch: 32, out: "last_hidden_state"}
	if _, ok := sess.Output(e.out); !ok {
		e.out = "token_embeddings"
	}
	info, _ := sess.Output(e.out)
	if n := len(info.Shape); n == 3 && info.Shape[2] > 0 {
		e.dim = int(info.Shape[2])
	} else {
		return nil, fmt.Errorf("%s: output %s has shape %v; want (batch, sequence, hidden) with a fixed hidden size", sess.Path(), e.out, info.Shape)
	}
	return e, nil
}

// err joins a signature's problems into one error.
func (sig signature) err(s *Session) error {
	if p := sig.check(s); len(p) > 0 {
		return fmt.Errorf("%s: %v", s.Path(), p)
	}
	return nil
}

// Dim is the length of each embedding.
func (e *TextEncoder) Dim() int { return e.dim }

// Name identifies the encoder and the parameters that change its vectors
// (model folder, pooling, maximum length), for cache keys and provenance.
func (e *TextEncoder) Name() string {
	return fmt.Sprintf("%s:%s:max%d", filepath.Base(filepath.Dir(e.sess.Path())), e.pooling, e.maxLen)
}

// Session returns the encoder's session.
func (e *TextEncoder) Session() *Session { return e.sess }

// Embed tokenizes texts (with special tokens, truncated to the maximum
// length) and embeds them; row i belongs to texts[i].
func (e *TextEncoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ids, err := encodeAll(e.tok, texts, e.maxLen)
	if err != nil {
		return nil, err
	}
	return e.EmbedIDs(ctx, ids)
}

// EmbedFlat is Embed with the rows concatenated: len(texts) x Dim().
func (e *TextEncoder) EmbedFlat(ctx context.Context, texts []string) ([]float32, error) {
	rows, err := e.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	flat := make([]float32, 0, len(rows)*e.dim)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return flat, nil
}

// encodeAll encodes texts with special tokens and truncates each to maxLen,
// keeping the final special token.
func encodeAll(tok Tokenizer, texts []string, maxLen int) ([][]int, error) {
	if tok == nil {
		return nil, fmt.Errorf("no tokenizer")
	}
	ids := make([][]int, len(texts))
	for i, t := range texts {
		s, err := tok.Encode(t, true)
		if err != nil {
			return nil, fmt.Errorf("text %d: %w", i, err)
		}
		ids[i] = truncateKeepLast(s, maxLen)
	}
	return ids, nil
}

// truncateKeepLast cuts ids to n, keeping the last id (the [SEP] or
// end-of-text a tokenizer appends), which is what HF's truncation gives for
// a single text.
func truncateKeepLast(ids []int, n int) []int {
	if n <= 0 || len(ids) <= n {
		return ids
	}
	out := append([]int(nil), ids[:n-1]...)
	return append(out, ids[len(ids)-1])
}

// EmbedIDs embeds pre-tokenized sequences (special tokens included). Each
// sequence is padded to its length bucket, so its vector does not depend on
// which other sequences share its batch.
func (e *TextEncoder) EmbedIDs(ctx context.Context, ids [][]int) ([][]float32, error) {
	lengths := make([]int, len(ids))
	for i, s := range ids {
		if len(s) == 0 {
			return nil, fmt.Errorf("text %d: no tokens", i)
		}
		if len(s) > e.maxLen {
			return nil, fmt.Errorf("text %d: %d tokens, more than the maximum %d", i, len(s), e.maxLen)
		}
		lengths[i] = len(s)
	}
	out := make([][]float32, len(ids))
	for _, p := range planBatches(lengths, e.maxLen, e.MaxBatch) {
		seqs := make([][]int, len(p.rows))
		for j, i := range p.rows {
			seqs[j] = ids[i]
		}
		vecs, err := e.runBatch(ctx, seqs, p.length)
		if err != nil {
			return nil, err
		}
		for j, i := range p.rows {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

// runBatch runs one padded batch and pools it.
func (e *TextEncoder) runBatch(ctx context.Context, seqs [][]int, length int) ([][]float32, error) {
	t := padTexts(seqs, length, e.pad)
	in := inputSet{}
	defer in.destroy()
	if err := t.feed(e.sess, in); err != nil {
		return nil, err
	}
	outs, err := e.sess.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	defer destroyMap(outs)
	h, shape, err := floats(outs, e.out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.sess.Path(), err)
	}
	if len(shape) != 3 || shape[0] != int64(len(seqs)) || shape[1] != int64(length) || shape[2] != int64(e.dim) {
		return nil, fmt.Errorf("%s: %s has shape %v, want [%d %d %d]", e.sess.Path(), e.out, shape, len(seqs), length, e.dim)
	}
	vecs := make([][]float32, len(seqs))
	for r := range seqs {
		rows := h[r*length*e.dim : (r+1)*length*e.dim]
		vecs[r] = pool(rows, t.mask[r*length:(r+1)*length], e.dim, e.pooling)
	}
	return vecs, nil
}

// pool reduces one sequence's rows (length x dim) to a unit vector.
func pool(rows []float32, mask []int64, dim int, p Pooling) []float32 {
	acc := make([]float64, dim)
	switch p {
	case PoolCLS:
		for k := range dim {
			acc[k] = float64(rows[k])
		}
	case PoolMean:
		n := 0
		for j, m := range mask {
			if m == 0 {
				continue
			}
			n++
			for k, v := range rows[j*dim : (j+1)*dim] {
				acc[k] += float64(v)
			}
		}
		for k := range acc {
			acc[k] /= float64(max(n, 1))
		}
	}
	return unit(acc)
}

// unit returns v / |v| as float32 (v itself when it is zero).
func unit(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	norm := math.Sqrt(ss)
	if norm == 0 {
		norm = 1
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

func unit32(v []float32) []float32 {
	w := make([]float64, len(v))
	for i, x := range v {
		w[i] = float64(x)
	}
	return unit(w)
}
