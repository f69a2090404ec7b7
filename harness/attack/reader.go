package attack

import (
	"context"
	"math"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/solve"
	"github.com/vidscreen/vidscreen/models/letters"
)

// A LetterReader is the lm_reader role (models.LetterScorer): it reads a
// multiple-choice prompt and returns log p(letter) for each option's letter
// from one prefill. Encode tokenizes a prompt and fails when it does not
// fit the model, so a reader can shorten what it gives before scoring.
type LetterReader interface {
	Encode(p letters.Prompt) ([]int, error)
	Score(ctx context.Context, prompts []letters.Prompt) ([][]float64, error)
}

// RoleLMReader is the lm_reader role.
const RoleLMReader = "lm_reader"

// letterPrompt gives an item to the readers as its parts (letters.Parts):
// kind says which of the Video-Index authors' prompts it is (options only,
// blind, or a context reader's), the options in their order; the readers
// word it (letters.Wording) and a chat template frames it.
func letterPrompt(it *harness.Item, kind letters.Kind, context string, captions []string) letters.Prompt {
	p := letters.Parts{Kind: kind, Options: it.Options, Context: context, Captions: captions}
	if kind != letters.KindOptionsOnly {
		p.Question = it.Question
	}
	return letters.New(p)
}

// readerChunk is how many prompts go to the reader per call, so that a
// cancelled run stops within one chunk.
const readerChunk = 64

// readAll scores the prompts whose use is true (all when use is nil);
// ok[p] is false for a prompt not used or refused by the reader on its own
// (too long for the model, say), which the attacker answers with a seeded
// guess. A failure of the model itself is an error.
func readAll(ctx context.Context, r LetterReader, prompts []letters.Prompt, use []bool) (scores [][]float64, ok []bool, err error) {
	scores = make([][]float64, len(prompts))
	ok = make([]bool, len(prompts))
	var idx []int
	for p, pr := range prompts {
		if use != nil && !use[p] {
			continue
		}
		if _, err := r.Encode(pr); err == nil {
			idx = append(idx, p)
		}
	}
	for lo := 0; lo < len(idx); lo += readerChunk {
		hi := min(lo+readerChunk, len(idx))
		batch := make([]letters.Prompt, hi-lo)
		for k, p := range idx[lo:hi] {
			batch[k] = prompts[p]
		}
		out, err := r.Score(ctx, batch)
		if err != nil {
			return nil, nil, err
		}
		for k, p := range idx[lo:hi] {
			scores[p], ok[p] = out[k], true
		}
	}
	return scores, ok, nil
}

// answerAll turns a reader's letter scores into predictions. A prompt the
// reader was asked and gave no row for (nil: its server failed) is an
// abstention marked with Prediction.Failure.
func answerAll(name string, s *Stream, scores [][]float64, ok []bool) []Prediction {
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if ok[p] && scores[p] == nil {
			// Asked and not answered: a served reader's server failed.
			out[p] = abstain(s.Seed, name, it)
			out[p].Failure = letters.FailureServer
			continue
		}
		if !ok[p] || len(scores[p]) != len(it.Options) {
			out[p] = abstain(s.Seed, name, it)
			continue
		}
		out[p] = decide(scores[p], s.Seed, name, it)
		out[p].Floored = floored(scores[p])
	}
	return out
}

// floored reports whether a reader's letter scores hold the floor
// solve.LogFloor (Prediction.Floored). The score alone says so: a served
// reader gives exactly that float64 to a letter its server did not return
// (models/openai: openai.LogFloor, the same constant), through every cache
// between it and the attacker (the response store, the feature cache and
// records.log keep float64s bit for bit), while an ONNX reader's
// log-softmax over the whole vocabulary never lands on it bit for bit (a
// letter it finds less likely keeps its own, lower, value). Reading it
// from the scores keeps one interface for ONNX and served readers.
func floored(scores []float64) bool {
	for _, v := range scores {
		if math.Float64bits(v) == math.Float64bits(solve.LogFloor) {
			return true
		}
	}
	return false
}
