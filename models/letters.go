package models

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/models/letters"
)

// MaxOptions is the most options an item may have: letters A to P
// (docs/attackers.md, answer parsing).
const MaxOptions = 16

// defaultLetterVariants are the forms an option letter takes as the next
// token: bare, and after a space (byte-level BPE vocabularies hold "A" and
// "ĠA" as different tokens).
var defaultLetterVariants = []string{"{L}", " {L}"}

// letterSet holds, per option letter, the distinct token ids its variants
// tokenize to.
type letterSet [][]int

// newLetterSet tokenizes each variant of letters A.. (without special
// tokens); a variant counts when it is a single token. A letter with no
// single-token variant is an error.
func newLetterSet(tok Tokenizer, variants []string) (letterSet, error) {
	if tok == nil {
		return nil, fmt.Errorf("letter tokens: no tokenizer")
	}
	if len(variants) == 0 {
		variants = defaultLetterVariants
	}
	set := make(letterSet, MaxOptions)
	for i := range MaxOptions {
		letter := string(rune('A' + i))
		for _, v := range variants {
			s := strings.ReplaceAll(v, "{L}", letter)
			ids, err := tok.Encode(s, false)
			if err != nil {
				return nil, fmt.Errorf("letter %s: encode %q: %w", letter, s, err)
			}
			if len(ids) == 1 && !slices.Contains(set[i], ids[0]) {
				set[i] = append(set[i], ids[0])
			}
		}
		if len(set[i]) == 0 {
			return nil, fmt.Errorf("letter %s: none of the variants %q is a single token", letter, variants)
		}
	}
	return set, nil
}

// score returns log p(letter) for the first n letters from one row of
// logits: the log-softmax over the whole vocabulary, with the variants of a
// letter merged by log-sum-exp.
func (ls letterSet) score(logits []float32, n int) []float64 {
	mx := math.Inf(-1)
	for _, x := range logits {
		mx = math.Max(mx, float64(x))
	}
	var z float64
	for _, x := range logits {
		z += math.Exp(float64(x) - mx)
	}
	lz := mx + math.Log(z)
	out := make([]float64, n)
	for i := range n {
		vals := make([]float64, len(ls[i]))
		for k, id := range ls[i] {
			vals[k] = float64(logits[id]) - lz
		}
		out[i] = logSumExp(vals)
	}
	return out
}

func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}

// LetterScorer reads a prompt with a causal LM (lm_reader) and returns the
// log-probabilities of the option letters at the next position, from one
// prefill.
type LetterScorer struct {
	sess    *Session
	tok     Tokenizer
	letters letterSet
	maxLen  int
	vocab   int
	// MaxBatch caps rows per run (default 16).
	MaxBatch int
	// LogitsBudget caps the bytes of the logits output of one run: exports
	// return logits for every position (rows x length x vocab float32), so
	// long prompts over a 150k vocabulary run in smaller batches. Default
	// 1 GiB.
	LogitsBudget int64
	bufs         logitsPool
	// keep names the model's num_logits_to_keep (or logits_to_keep)
	// input, when it has one: then only the last position's logits are
	// computed.
	keep string
	// Prompting words and frames the prompts given by their parts (the
	// authors' wording, plain, by default).
	Prompting Prompting
}

// defaultReaderMaxLen bounds reader prompts (tokens) when the manifest does
// not say.
const defaultReaderMaxLen = 2048

// NewLetterScorer wraps a causal LM session.
func NewLetterScorer(sess *Session, tok Tokenizer, spec RoleSpec) (*LetterScorer, error) {
	if err := signatures[RoleLMReader]["model.onnx"].err(sess); err != nil {
		return nil, err
	}
	letters, err := newLetterSet(tok, spec.LetterVariants)
	if err != nil {
		return nil, err
	}
	logits, _ := sess.Output("logits")
	if len(logits.Shape) != 3 || logits.Shape[2] <= 0 {
		return nil, fmt.Errorf("%s: logits has shape %v; want (batch, sequence, vocab) with a fixed vocab", sess.Path(), logits.Shape)
	}
	s := &LetterScorer{sess: sess, tok: tok, letters: letters, maxLen: spec.MaxLength, vocab: int(logits.Shape[2]), MaxBatch: 16, LogitsBudget: 1 << 30}
	for _, name := range []string{"num_logits_to_keep", "logits_to_keep"} {
		if x, ok := sess.Input(name); ok {
			if len(x.Shape) > 1 || (len(x.Shape) == 1 && x.Shape[0] != 1) {
				return nil, fmt.Errorf("%s: input %s has shape %v; want a scalar", sess.Path(), name, x.Shape)
			}
			s.keep = name
		}
	}
	if s.maxLen <= 0 {
		s.maxLen = defaultReaderMaxLen
	}
	for i, ids := range letters {
		for _, id := range ids {
			if id >= s.vocab {
				return nil, fmt.Errorf("letter %c: token %d is outside the model's vocabulary of %d", 'A'+i, id, s.vocab)
			}
		}
	}
	return s, nil
}

// LetterIDs returns the token ids scored for each letter A..P.
func (s *LetterScorer) LetterIDs() [][]int { return slices.Clone(s.letters) }

// Encode renders a prompt (Prompting), tokenizes it and checks it fits, so
// a bad item fails on its own before batching.
func (s *LetterScorer) Encode(p letters.Prompt) ([]int, error) {
	if p.Options < 2 || p.Options > MaxOptions {
		return nil, fmt.Errorf("%d options; want 2 to %d", p.Options, MaxOptions)
	}
	text, special, err := s.Prompting.Text(p)
	if err != nil {
		return nil, err
	}
	ids, err := s.tok.Encode(text, special)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 || len(ids) > s.maxLen {
		return nil, fmt.Errorf("prompt of %d tokens; want 1 to %d", len(ids), s.maxLen)
	}
	return ids, nil
}

// Score returns, per prompt, log p(letter) for its options' letters.
func (s *LetterScorer) Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, error) {
	seqs := make([][]int, len(prompts))
	n := make([]int, len(prompts))
	for i, p := range prompts {
		ids, err := s.Encode(p)
		if err != nil {
			return nil, fmt.Errorf("prompt %d: %w", i, err)
		}
		seqs[i], n[i] = ids, p.Options
	}
	return s.ScoreIDs(ctx, seqs, n)
}

// ScoreIDs scores pre-tokenized prompts; options[i] letters are scored for
// seqs[i].
func (s *LetterScorer) ScoreIDs(ctx context.Context, seqs [][]int, options []int) ([][]float64, error) {
	lengths := make([]int, len(seqs))
	for i, q := range seqs {
		if len(q) == 0 || len(q) > s.maxLen {
			return nil, fmt.Errorf("prompt %d: %d tokens; want 1 to %d", i, len(q), s.maxLen)
		}
		if options[i] < 1 || options[i] > MaxOptions {
			return nil, fmt.Errorf("prompt %d: %d options", i, options[i])
		}
		lengths[i] = len(q)
	}
	out := make([][]float64, len(seqs))
	for _, p := range planBatches(lengths, s.maxLen, s.MaxBatch) {
		for lo := 0; lo < len(p.rows); {
			outLen := p.length
			if s.keep != "" {
				outLen = 1
			}
			hi := min(len(p.rows), lo+maxRowsFor(s.LogitsBudget, outLen, s.vocab))
			rows := p.rows[lo:hi]
			batch := make([][]int, len(rows))
			for j, i := range rows {
				batch[j] = seqs[i]
			}
			last, err := lastLogits(ctx, s.sess, &s.bufs, batch, p.length, outLen, s.vocab, func(in inputSet) error {
				if s.keep == "" {
					t := padTexts(batch, p.length, 0)
					if err := t.feed(s.sess, in); err != nil {
						return err
					}
					return emptyPast(s.sess, len(batch), in)
				}
				// Logits for the last position only: pad on the left so
				// that position is every row's last token.
				t := padTextsLeft(batch, p.length, 0)
				if err := t.feed(s.sess, in); err != nil {
					return err
				}
				k, err := ort.NewScalar(int64(1))
				if err != nil {
					return err
				}
				in[s.keep] = k
				return emptyPast(s.sess, len(batch), in)
			})
			if err != nil {
				return nil, err
			}
			for j, i := range rows {
				out[i] = s.letters.score(last[j], options[i])
			}
			lo = hi
		}
	}
	return out, nil
}

// maxRowsFor is how many rows of length x vocab float32 logits fit budget
// (at least 1).
func maxRowsFor(budget int64, length, vocab int) int {
	if budget <= 0 {
		return math.MaxInt32
	}
	return max(1, int(budget/(int64(length)*int64(vocab)*4)))
}

// logitsPool recycles the float32 buffers that large logits outputs are
// written into, across runs and goroutines of one runner.
type logitsPool struct{ p sync.Pool }

func (lp *logitsPool) get(n int) *[]float32 {
	b, _ := lp.p.Get().(*[]float32)
	if b == nil || cap(*b) < n {
		s := make([]float32, n)
		b = &s
	}
	*b = (*b)[:n]
	return b
}

func (lp *logitsPool) put(b *[]float32) { lp.p.Put(b) }

// lastLogits runs a decoder and returns, per row, the logits at the row's
// last real token. With outLen == length the batch is right-padded and the
// model returns logits for every position; with outLen == 1 (a model
// asked for its last position only) the batch is left-padded. The logits go
// into a recycled buffer rather than a fresh allocation.
func lastLogits(ctx context.Context, sess *Session, pool *logitsPool, batch [][]int, length, outLen, vocab int, feed func(inputSet) error) ([][]float32, error) {
	in := inputSet{}
	defer in.destroy()
	if err := feed(in); err != nil {
		return nil, err
	}
	n := len(batch) * outLen * vocab
	bufp := pool.get(n)
	defer pool.put(bufp)
	buf := *bufp
	lt, err := floatTensor(buf, int64(len(batch)), int64(outLen), int64(vocab))
	if err != nil {
		return nil, err
	}
	defer lt.Destroy()
	outs, err := sess.RunInto(ctx, in, map[string]ort.Value{"logits": lt})
	if err != nil {
		return nil, err
	}
	destroyMap(outs)
	last := make([][]float32, len(batch))
	for r, q := range batch {
		off := r * vocab
		if outLen != 1 {
			off = (r*length + len(q) - 1) * vocab
		}
		last[r] = slices.Clone(buf[off : off+vocab])
	}
	return last, nil
}
