package attack

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// VLMChunks is the number of contiguous chunks the eight-chunk reader
// reads a video in, and VLMChunkFrames the frames it shows of each: the
// Video-Oasis authors' redundancy test (ambiguity/redundancy.py:
// num_chunks 8, frames_per_chunk 16).
const (
	VLMChunks      = 8
	VLMChunkFrames = 16
)

// VLMChunk is the key of Visual.VLM holding vlm_reader's letter scores of
// chunk k (1..VLMChunks) of the clip (features.ChunkSets).
func VLMChunk(k int) string { return fmt.Sprintf("vlm-chunk-%d-of-%d", k, VLMChunks) }

// chunkReader is the redundancy check of Video-Oasis (3.1, criteria 3 (ii):
// "cases solvable via any arbitrary video segment"), as its authors run it
// (ambiguity/redundancy.py): vlm_reader reads each of eight contiguous
// chunks of the clip on its own, 16 uniform frames of it with the question
// and the lettered options, and the item is a redundancy candidate when
// every chunk is answered correctly. The reader answers an item only where
// the eight chunks agree: their common choice, with the chunks' mean
// letter log-probabilities as its scores, so that it is correct exactly
// when every chunk is. Where they disagree, a chunk had nothing to go on
// (tied letters), or a chunk has no scores (the video failed, the prompt
// fitted no frame count), it abstains: a seeded guess the screen never
// counts (the authors' incomplete result is no candidate either).
//
// It measures an item's annotation, not a shortcut: it belongs to no
// level's exploitability (ScreeningOnly), and no option permutation asks
// it again (it does not rebuild its prompt at attack time).
type chunkReader struct{}

func (*chunkReader) Name() string         { return "eight-chunk-reader" }
func (*chunkReader) Level() harness.Level { return harness.LevelOrder }
func (*chunkReader) needs() Needs         { return NeedVLMChunks }
func (*chunkReader) screeningOnly()       {}
func (*chunkReader) scoresLetters()       {}

func (a *chunkReader) Attack(ctx context.Context, s *Stream) ([]Prediction, error) {
	if err := checkVisual(a.Name(), s); err != nil {
		return nil, err
	}
	out := make([]Prediction, len(s.Items))
	for p, it := range s.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pred, err := unanimous(s.Visual[p], s.Seed, a.Name(), it)
		if err != nil {
			return nil, err
		}
		out[p] = pred
	}
	s.answered(len(s.Items))
	return out, nil
}

// unanimous is the eight-chunk reader's answer to one item (chunkReader).
func unanimous(v *Visual, seed uint64, name string, it *harness.Item) (Prediction, error) {
	if v == nil || v.Failure != "" {
		return abstain(seed, name, it), nil
	}
	mean := make([]float64, len(it.Options))
	choice := -1
	for k := 1; k <= VLMChunks; k++ {
		scores := v.VLM[VLMChunk(k)]
		if scores == nil {
			return abstain(seed, name, it), nil
		}
		if len(scores) != len(it.Options) {
			return Prediction{}, fmt.Errorf("%s: item %s: chunk %d: %d letter scores for %d options", name, it.Source, k, len(scores), len(it.Options))
		}
		d := decide(scores, seed, name, it)
		if d.Abstain || (choice >= 0 && d.Choice != choice) {
			return abstain(seed, name, it), nil
		}
		choice = d.Choice
		for j, x := range scores {
			mean[j] += x / VLMChunks
		}
	}
	return Prediction{Choice: choice, Scores: mean, Floored: floored(mean)}, nil
}
