package attack

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// The eight-chunk reader answers only where its eight chunks agree, as the
// authors' redundancy test flags an item only when every chunk is correct
// (Video-Oasis ambiguity/redundancy.py, all_chunks_correct): agreeing on
// the gold it is right, agreeing on another option it is wrong, any
// disagreement, tied chunk or missing chunk an abstention.
func TestChunkReaderAnswersWhenTheChunksAgree(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "i", Benchmark: "B", Source: "B:1", Options: []string{"p", "q", "r"}, Answer: 0}
	lp := func(best int, m float64) []float64 {
		out := []float64{-2, -2, -2}
		out[best] = -2 + m
		return out
	}
	chunks := func(f func(k int) []float64) *Visual {
		v := &Visual{VLM: map[string][]float64{}}
		for k := 1; k <= VLMChunks; k++ {
			if sc := f(k); sc != nil {
				v.VLM[VLMChunk(k)] = sc
			}
		}
		return v
	}
	for _, tt := range []struct {
		name    string
		v       *Visual
		abstain bool
		choice  int
		margin  float64 // the mean scores' gold margin where it answers
	}{
		// Margins 1..8 over two others at -2: mean gold -2 + 4.5, margin 4.5.
		{"eight on the gold", chunks(func(k int) []float64 { return lp(0, float64(k)) }), false, 0, 4.5},
		{"eight on option 2", chunks(func(k int) []float64 { return lp(2, 1) }), false, 2, -0.5},
		{"chunk 5 on option 1", chunks(func(k int) []float64 {
			if k == 5 {
				return lp(1, 1)
			}
			return lp(0, 1)
		}), true, 0, 0},
		{"chunk 8 missing", chunks(func(k int) []float64 {
			if k == 8 {
				return nil
			}
			return lp(0, 1)
		}), true, 0, 0},
		{"chunk 3 tied", chunks(func(k int) []float64 {
			if k == 3 {
				return []float64{-1, -1, -1}
			}
			return lp(0, 1)
		}), true, 0, 0},
		{"the video failed", &Visual{Failure: "missing"}, true, 0, 0},
	} {
		s := &Stream{Items: []*harness.Item{it}, Visual: []*Visual{tt.v}, Seed: 7}
		got, err := (&chunkReader{}).Attack(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		p := got[0]
		if p.Abstain != tt.abstain {
			t.Errorf("%s: abstain %v, want %v", tt.name, p.Abstain, tt.abstain)
			continue
		}
		if tt.abstain {
			continue
		}
		m := p.Scores[0] - (p.Scores[1]+p.Scores[2])/2
		if p.Choice != tt.choice || math.Abs(m-tt.margin) > 1e-12 {
			t.Errorf("%s: choice %d margin %v, want %d, %v", tt.name, p.Choice, m, tt.choice, tt.margin)
		}
	}
	bad := chunks(func(k int) []float64 { return []float64{0, 1} })
	if _, err := (&chunkReader{}).Attack(context.Background(), &Stream{Items: []*harness.Item{it}, Visual: []*Visual{bad}}); err == nil {
		t.Error("two scores for three options: no error")
	}
}
