package attack

import (
	"context"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models/letters"
)

// retrievalReader is L3 with a reader (Video-Index 3.4: "Qwen3-8B given
// the eight nearest question-answer pairs"): lm_reader reads the
// retrievalK items of the benchmark nearest to this one by question
// embedding among those answered before it in the stream's order, each
// with its question, lettered options and gold answer, then the item's
// question and options, and scores the letters. It is prequential as copy
// and knn-vote are: an item's gold enters the store only once it has been
// answered, so the first item of a benchmark reads no pair (its prompt is
// the blind reader's; the levels nest, so the pool level may know what the
// text level knows). When the prompt does not fit the model, the farthest
// pair is dropped until it does; an item whose prompt never fits gets a
// seeded guess.
//
// It reads every position of every order, not only the scored fold: the
// cards' learning curve (the gap after 25 to 100% of the items, Video-Index
// figure 3) reads them all. So it costs cfg.Orders prompts per item.
type retrievalReader struct {
	cfg   Config
	cache *Cache
	r     LetterReader
}

// retrievalK is the number of retrieved pairs (Video-Index 3.4: eight).
const retrievalK = 8

func (*retrievalReader) Name() string         { return "retrieval-reader" }
func (*retrievalReader) Level() harness.Level { return harness.LevelPool }
func (*retrievalReader) prequential()         {}
func (*retrievalReader) usesQuestion()        {}
func (*retrievalReader) scoresLetters()       {}

func (a *retrievalReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkRows(a.Name(), s.Question, s); err != nil {
		return nil, err
	}
	if a.r == nil {
		return nil, fmt.Errorf("%s: no lm_reader", a.Name())
	}
	prompts := make([]letters.Prompt, len(s.Items))
	// The search reports no progress: reading the prompts is the work.
	quiet := *s
	quiet.Progress = nil
	err := nearestEarlierBy(ctx, retrievalK, a.cfg.kernelOptions(), &a.cache.retrievalIndex, s.Question, &quiet, func(p int, near []earlier) {
		if !s.asks(p) {
			return // another shard's item: its pairs are read, it is not asked
		}
		pairs := make([]*harness.Item, len(near))
		for i, e := range near {
			pairs[i] = s.Items[e.pos]
		}
		prompts[p] = fitPairs(a.r, s.Items[p], pairs)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	return readPrompts(ctx, a.Name(), a.r, s, prompts)
}

// fitPairs writes it after pairs (nearest first), dropping the farthest
// pair while the prompt does not fit the reader; with no pair left the
// prompt is the item's alone, which readAll refuses when even that does
// not fit.
func fitPairs(r LetterReader, it *harness.Item, pairs []*harness.Item) letters.Prompt {
	for n := len(pairs); ; n-- {
		p := letterPrompt(it, letters.KindExamples, pairContext(pairs[:n]), nil)
		if n == 0 {
			return p
		}
		if _, err := r.Encode(p); err == nil {
			return p
		}
	}
}

// pairContext writes the retrieved items, nearest first: each question,
// its lettered options and its gold answer, letter and text.
func pairContext(pairs []*harness.Item) string {
	if len(pairs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, it := range pairs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Example %d.\nQuestion: %s\nOptions:\n%s", i+1, strings.TrimSpace(it.Question), letters.RenderOptions(it.Options))
		if g := it.Answer; g >= 0 && g < len(it.Options) {
			fmt.Fprintf(&b, "\nAnswer: %s. %s", letters.LetterName(g), strings.TrimSpace(it.Options[g]))
		}
	}
	return b.String()
}

// readPrompts scores the prompts, a chunk at a time so that the run's
// progress moves as the reader works, and turns the scores into answers
// (a seeded guess where a prompt did not fit).
func readPrompts(ctx context.Context, name string, r LetterReader, s *Stream, prompts []letters.Prompt) ([]Prediction, error) {
	scores := make([][]float64, len(prompts))
	ok := make([]bool, len(prompts))
	const chunk = 4 * readerChunk
	for lo := 0; lo < len(prompts); lo += chunk {
		hi := min(lo+chunk, len(prompts))
		var use []bool
		if s.Ask != nil {
			use = s.Ask[lo:hi]
		}
		sc, k, err := readAll(ctx, r, prompts[lo:hi], use)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		copy(scores[lo:hi], sc)
		copy(ok[lo:hi], k)
		s.answered(hi - lo)
	}
	return answerAll(name, s, scores, ok), nil
}
