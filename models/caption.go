package models

import (
	"context"
	"fmt"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/vidscreen/vidscreen/models/imageprep"
)

// Caption is one generated caption.
type Caption struct {
	IDs  []int  `json:"ids"` // new tokens, the end token included when reached
	Text string `json:"text"`
	// Failed says a served captioner's server failed on this frame after
	// its retries (Text is empty): the video's items fail with reason
	// letters.FailureServer and nothing of it is cached, so a later run asks again.
	Failed bool `json:"-"`
}

// Captioner writes captions with an image encoder and a text decoder that
// keeps a key-value cache: greedy decoding, batched, until every row has
// produced the end token or MaxNewTokens tokens.
type Captioner struct {
	// prep makes images from frames (preprocessor_config.json); nil
	// when the runner was built from sessions alone.
	prep     *imageprep.Processor
	enc, dec *Session
	// first, when not nil, runs the first step (decoder_model.onnx of a
	// decoder_model + decoder_with_past_model pair); otherwise dec runs
	// every step, starting from an empty cache.
	first    *Session
	tok      Tokenizer
	bos, eos int
	// MaxNewTokens bounds each caption (default 32).
	MaxNewTokens int
	// MaxBatch caps images per batch (default 16).
	MaxBatch int
}

// NewCaptioner wraps the encoder and decoder sessions; first may be nil.
// bos starts every caption and eos ends one.
func NewCaptioner(enc, dec, first *Session, tok Tokenizer, bos, eos int) (*Captioner, error) {
	sigs := signatures[RoleCaptioner]
	if err := sigs["encoder_model.onnx"].err(enc); err != nil {
		return nil, err
	}
	for _, d := range []*Session{dec, first} {
		if d == nil {
			continue
		}
		if err := sigs["decoder_model_merged.onnx"].err(d); err != nil {
			return nil, err
		}
	}
	if first == nil {
		for _, x := range dec.Inputs() {
			if strings.HasPrefix(x.Name, "past_key_values.") && (len(x.Shape) != 4 || x.Shape[1] < 0 || x.Shape[3] < 0) {
				return nil, fmt.Errorf("%s: cache input %s has shape %v; want (batch, heads, past, head_size)", dec.Path(), x.Name, x.Shape)
			}
		}
	}
	return &Captioner{enc: enc, dec: dec, first: first, tok: tok, bos: bos, eos: eos, MaxNewTokens: 32, MaxBatch: 16}, nil
}

// Caption writes one caption per image.
func (c *Captioner) Caption(ctx context.Context, images ImageBatch) ([]Caption, error) {
	if err := images.check(); err != nil {
		return nil, err
	}
	var out []Caption
	for lo := 0; lo < images.N; lo += c.MaxBatch {
		ids, err := c.generate(ctx, images.slice(lo, min(images.N, lo+c.MaxBatch)))
		if err != nil {
			return nil, err
		}
		for _, s := range ids {
			cp := Caption{IDs: s}
			if c.tok != nil {
				cp.Text = c.tok.Decode(s)
			}
			out = append(out, cp)
		}
	}
	return out, nil
}

// generate decodes one batch greedily.
func (c *Captioner) generate(ctx context.Context, images ImageBatch) ([][]int, error) {
	n := images.N
	pix, err := floatTensor(images.Data, int64(n), int64(images.C), int64(images.H), int64(images.W))
	if err != nil {
		return nil, err
	}
	defer pix.Destroy()
	encOut, hidden, err := encode(ctx, c.enc, "pixel_values", pix)
	if err != nil {
		return nil, err
	}
	defer destroyMap(encOut)
	encLen := hidden.GetShape()[1]

	// cache maps each past_key_values.* input to its current value; the
	// values come from the previous step's present.* outputs.
	cache := map[string]ort.Value{}
	defer func() { destroyMap(cache) }()
	if c.first == nil {
		in := inputSet{}
		if err := emptyPast(c.dec, n, in); err != nil {
			return nil, err
		}
		for k, v := range in {
			if strings.HasPrefix(k, "past_key_values.") {
				cache[k] = v
			} else {
				v.Destroy()
			}
		}
	}
	seqs := make([][]int, n)
	done := make([]bool, n)
	next := make([]int64, n)
	for i := range next {
		next[i] = int64(c.bos)
	}
	for step := 0; step < c.MaxNewTokens; step++ {
		sess := c.dec
		if step == 0 && c.first != nil {
			sess = c.first
		}
		in := inputSet{}
		ids, err := int64Tensor(append([]int64(nil), next...), int64(n), 1)
		if err != nil {
			return nil, err
		}
		in["input_ids"] = ids
		for _, x := range sess.Inputs() {
			var v ort.Value
			var err error
			switch {
			case x.Name == "input_ids":
				continue
			case x.Name == "encoder_hidden_states":
				// Not owned by in: the encoder output is destroyed once, above.
				continue
			case x.Name == "use_cache_branch":
				v, err = ort.NewTensor(ort.NewShape(1), []bool{step > 0})
			case x.Name == "attention_mask" || x.Name == "decoder_attention_mask":
				v, err = int64Tensor(ones(n*(step+1)), int64(n), int64(step+1))
			case x.Name == "encoder_attention_mask":
				v, err = int64Tensor(ones(n*int(encLen)), int64(n), encLen)
			case x.Name == "position_ids":
				v, err = int64Tensor(filled(n, int64(step)), int64(n), 1)
			case strings.HasPrefix(x.Name, "past_key_values."):
				continue
			default:
				err = fmt.Errorf("%s: input %s is not one a captioner feeds", sess.Path(), x.Name)
			}
			if err != nil {
				in.destroy()
				return nil, err
			}
			in[x.Name] = v
		}
		feed := map[string]ort.Value{}
		for k, v := range in {
			feed[k] = v
		}
		if _, ok := sess.Input("encoder_hidden_states"); ok {
			feed["encoder_hidden_states"] = hidden
		}
		for _, x := range sess.Inputs() {
			if strings.HasPrefix(x.Name, "past_key_values.") {
				v, ok := cache[x.Name]
				if !ok {
					in.destroy()
					return nil, fmt.Errorf("%s: no cache value for %s", sess.Path(), x.Name)
				}
				feed[x.Name] = v
			}
		}
		outs, err := sess.Run(ctx, feed)
		in.destroy()
		if err != nil {
			return nil, err
		}
		logits, shape, err := floats(outs, "logits")
		if err != nil || len(shape) != 3 || shape[0] != int64(n) {
			destroyMap(outs)
			return nil, fmt.Errorf("%s: logits %v: %v", sess.Path(), shape, err)
		}
		vocab, t := int(shape[2]), int(shape[1])
		all := true
		for r := range n {
			row := logits[(r*t+t-1)*vocab : (r*t+t)*vocab]
			tok := argmaxFloat32(row)
			if !done[r] {
				seqs[r] = append(seqs[r], tok)
				done[r] = tok == c.eos
			}
			// Finished rows keep decoding (their outputs are ignored); every
			// row's tokens depend only on its own image.
			next[r] = int64(tok)
			all = all && done[r]
		}
		// Move present.X into past_key_values.X for the next step.
		for name, v := range outs {
			if rest, ok := strings.CutPrefix(name, "present."); ok {
				key := "past_key_values." + rest
				if old, ok := cache[key]; ok {
					old.Destroy()
				}
				cache[key] = v
				delete(outs, name)
			}
		}
		destroyMap(outs)
		if all {
			break
		}
	}
	return seqs, nil
}

// argmaxFloat32 returns the index of the largest value, the lowest index on
// ties, so greedy decoding is deterministic.
func argmaxFloat32(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

func ones(n int) []int64 { return filled(n, 1) }

func filled(n int, v int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}
