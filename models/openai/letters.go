package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vidscreen/vidscreen/models/letters"
)

// A Message is one turn of a chat prompt: text, or for a vision-language
// model, Parts interleaving text and images (sent as OpenAI content parts,
// images as data URLs, which vLLM, SGLang and the llama.cpp server read).
type Message struct {
	Role    string
	Content string // used when Parts is empty
	Parts   []Part
}

// A Part is one piece of a message: Text, or Image when Image is set.
type Part struct {
	Text  string
	Image *Image
}

// MarshalJSON writes the message as the chat API expects: content is a
// string, or a list of {"type": "text"} and {"type": "image_url"} parts.
func (m Message) MarshalJSON() ([]byte, error) {
	if len(m.Parts) == 0 {
		return json.Marshal(struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{m.Role, m.Content})
	}
	type imageURL struct {
		URL string `json:"url"`
	}
	type part struct {
		Type     string    `json:"type"`
		Text     string    `json:"text,omitempty"`
		ImageURL *imageURL `json:"image_url,omitempty"`
	}
	parts := make([]part, len(m.Parts))
	for i, p := range m.Parts {
		if p.Image != nil {
			parts[i] = part{Type: "image_url", ImageURL: &imageURL{URL: p.Image.DataURL()}}
		} else {
			parts[i] = part{Type: "text", Text: p.Text}
		}
	}
	return json.Marshal(struct {
		Role    string `json:"role"`
		Content []part `json:"content"`
	}{m.Role, parts})
}

// A Request is one prompt to score: Prompt for plain completions, Messages
// for chat, and the option letters whose log-probabilities are wanted.
type Request struct {
	Prompt   string
	Messages []Message
	Letters  []string
}

// LogFloor is the log-probability given to an option letter none of whose
// variants is among the candidates the server returned (its top 20):
// log(1e-6), the Video-Index authors' floor (video_index/pool/logprobs.py),
// so that margins compare with theirs. harness/solve.LogFloor is this
// constant: it is defined here, in the models layer that produces the
// scores, because models must not import the harness above it.
const LogFloor = -13.815510557964274 // math.Log(1e-6)

// Scores are the merged log-probabilities of the letters at the first
// generated position.
type Scores struct {
	Letters  []string
	LogProbs []float64 // natural log; LogFloor for a letter not Found
	// Found says, per letter, whether any variant of it was among the
	// candidates; a letter not Found was floored (its score is LogFloor, not
	// a log-probability the server gave).
	Found []bool
	// Lowest is the lowest candidate log-probability returned: every token
	// outside the candidates is at most this likely. It is reported, not
	// used: a floored letter gets LogFloor even when Lowest is below it, as
	// the authors do.
	Lowest float64
}

// Floored returns how many letters were given LogFloor because no variant
// of theirs was among the candidates.
func (s Scores) Floored() int {
	n := 0
	for _, f := range s.Found {
		if !f {
			n++
		}
	}
	return n
}

// Best returns the index of the most likely letter (the first on ties).
func (s Scores) Best() int {
	best := 0
	for i, v := range s.LogProbs {
		if v > s.LogProbs[best] {
			best = i
		}
	}
	return best
}

// A Result is the outcome of one Request in a batch.
type Result struct {
	Scores Scores
	Err    error
}

// LetterLogProbs sends one request and merges the candidates into per-letter
// log-probabilities.
func (c *Client) LetterLogProbs(ctx context.Context, r Request) (Scores, error) {
	if err := checkLetters(r.Letters); err != nil {
		return Scores{}, err
	}
	body, err := c.requestBody(r)
	if err != nil {
		return Scores{}, err
	}
	var resp completionResponse
	if err := c.post(ctx, body, &resp); err != nil {
		return Scores{}, fmt.Errorf("score letters at %s: %w", c.endpoint, err)
	}
	cands, err := resp.candidates()
	if err != nil {
		return Scores{}, fmt.Errorf("score letters at %s: %w", c.endpoint, err)
	}
	return mergeLetters(cands, r.Letters), nil
}

// ScoreAll scores every request, at most MaxConcurrent at a time, and
// returns the results in the order of reqs. A request that fails has its
// error in its Result; the others go on. When ctx ends, the requests not yet
// sent fail with ctx.Err().
func (c *Client) ScoreAll(ctx context.Context, reqs []Request) []Result {
	res := make([]Result, len(reqs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(c.cfg.MaxConcurrent, len(reqs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(reqs) {
					return
				}
				if err := ctx.Err(); err != nil {
					res[i].Err = err
					continue
				}
				res[i].Scores, res[i].Err = c.LetterLogProbs(ctx, reqs[i])
			}
		}()
	}
	wg.Wait()
	return res
}

func checkLetters(letters []string) error {
	if len(letters) == 0 {
		return errors.New("score letters: no letters")
	}
	seen := map[string]bool{}
	for _, l := range letters {
		if l == "" || strings.TrimSpace(l) != l {
			return fmt.Errorf("score letters: letter %q is empty or has white space", l)
		}
		if seen[l] {
			return fmt.Errorf("score letters: letter %q listed twice", l)
		}
		seen[l] = true
	}
	return nil
}

func (c *Client) requestBody(r Request) ([]byte, error) {
	// temperature 0 and max_tokens 1: the reply is only there to carry the
	// log-probabilities of the first position, which sampling does not change.
	req := map[string]any{"model": c.cfg.Model, "max_tokens": 1, "temperature": 0}
	if c.cfg.Chat {
		if len(r.Messages) == 0 {
			return nil, errors.New("score letters: chat client given a request with no messages")
		}
		req["messages"] = r.Messages
		req["logprobs"] = true
		req["top_logprobs"] = c.cfg.TopLogprobs
	} else {
		if r.Prompt == "" {
			return nil, errors.New("score letters: completions client given a request with no prompt")
		}
		req["prompt"] = r.Prompt
		req["logprobs"] = c.cfg.TopLogprobs
	}
	return json.Marshal(req)
}

// completionResponse holds both reply shapes: the legacy completions one
// (vLLM, SGLang: logprobs.tokens, .token_logprobs and .top_logprobs as a list
// of token-to-logprob objects) and the chat one (OpenAI chat, vLLM chat, the
// llama.cpp server on both endpoints: logprobs.content[].top_logprobs[]).
type completionResponse struct {
	Choices []struct {
		Logprobs *struct {
			Tokens        []string             `json:"tokens"`
			TokenLogprobs []*float64           `json:"token_logprobs"`
			TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			Content       []struct {
				candidate
				TopLogprobs []candidate `json:"top_logprobs"`
			} `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
}

// A candidate is one token the server reported for the first position.
type candidate struct {
	ID      *int    `json:"id"` // llama.cpp reports token ids; others do not
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// candidates lists the first position's tokens, the sampled one included,
// each once.
func (r *completionResponse) candidates() ([]candidate, error) {
	if len(r.Choices) == 0 {
		return nil, errors.New("reply has no choices")
	}
	lp := r.Choices[0].Logprobs
	if lp == nil {
		return nil, errors.New("reply has no logprobs (old llama.cpp servers ignore logprobs on /v1/completions; use chat completions)")
	}
	var cands []candidate
	switch {
	case len(lp.Content) > 0:
		first := lp.Content[0]
		cands = append(cands, first.TopLogprobs...)
		cands = append(cands, first.candidate)
	case len(lp.TopLogprobs) > 0 || len(lp.Tokens) > 0:
		if len(lp.TopLogprobs) > 0 {
			for tok, v := range lp.TopLogprobs[0] {
				cands = append(cands, candidate{Token: tok, Logprob: v})
			}
		}
		if len(lp.Tokens) > 0 && len(lp.TokenLogprobs) > 0 && lp.TokenLogprobs[0] != nil {
			cands = append(cands, candidate{Token: lp.Tokens[0], Logprob: *lp.TokenLogprobs[0]})
		}
	default:
		return nil, errors.New("reply's logprobs list no tokens")
	}
	// One entry per token: by id where the server gives ids, else by text.
	// Sorting first makes the merge below independent of map order.
	sort.Slice(cands, func(i, j int) bool { return key(cands[i]) < key(cands[j]) })
	out := cands[:0]
	for i, c := range cands {
		if i > 0 && key(c) == key(cands[i-1]) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

func key(c candidate) string {
	if c.ID != nil {
		return "#" + strconv.Itoa(*c.ID)
	}
	return c.Token
}

// letterOf returns the letter a candidate token spells, as the Video-Index
// authors read one (letters.LetterOf: "A", " A", "(A", "[A", "A.", "A)",
// "A:"), once the SentencePiece and GPT-2 space markers of servers that
// return raw pieces are read as the white space they stand for; "" when it
// spells none.
func letterOf(tok string) string {
	tok = strings.NewReplacer("\u2581", " ", "\u0120", " ", "\u010a", "\n").Replace(tok)
	l, ok := letters.LetterOf(tok)
	if !ok {
		return ""
	}
	return string(l)
}

// mergeLetters sums, in log space, the probabilities of every candidate
// spelling each letter: p(A) = p("A") + p(" A") + p("(A") + ... (log-sum-exp).
// A letter none of whose variants is a candidate gets LogFloor.
func mergeLetters(cands []candidate, letters []string) Scores {
	s := Scores{Letters: letters, LogProbs: make([]float64, len(letters)), Found: make([]bool, len(letters)), Lowest: math.Inf(1)}
	variants := make([][]float64, len(letters))
	index := map[string]int{}
	for i, l := range letters {
		index[l] = i
	}
	for _, c := range cands {
		s.Lowest = math.Min(s.Lowest, c.Logprob)
		if i, ok := index[letterOf(c.Token)]; ok {
			variants[i] = append(variants[i], c.Logprob)
		}
	}
	for i, v := range variants {
		if len(v) == 0 {
			s.LogProbs[i] = LogFloor
			continue
		}
		s.Found[i] = true
		s.LogProbs[i] = logSumExp(v)
	}
	return s
}

// logSumExp is log(sum(exp(v))), computed from the largest term so that
// nothing overflows or vanishes.
func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	sum := 0.0
	for _, x := range v {
		sum += math.Exp(x - m)
	}
	return m + math.Log(sum)
}
