package vidomni

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Two pairs, similarities worked by hand:
//
//	X: Correct 0.9, Incorrect 0.2, Correct 0.5
//	Y: Incorrect 0.4, Correct 0.6
//
// Candidates: below all, 0.3, 0.45, 0.55, 0.75, above all. Mean F1:
// nothing flagged 0; 0.3 flags X's Incorrect only: (1 + 0)/2; 0.45 flags
// both Incorrect sentences and nothing else: 1; 0.55 adds X's 0.5: (2/3 +
// 1)/2. The fit is 0.45.
func TestFitThresholdWorkedByHand(t *testing.T) {
	t.Parallel()
	pair := func(id string, labels ...string) *Pair {
		p := &Pair{ID: id, Video: id, Source: "s", Type: 1, Duration: 10}
		for _, l := range labels {
			p.Sentences = append(p.Sentences, Sentence{Text: "x", Label: l})
		}
		return p
	}
	pairs := []*Pair{pair("X", Correct, Incorrect, Correct), pair("Y", Incorrect, Correct), pair("Z", Incorrect)}
	sims := [][]float64{{0.9, 0.2, 0.5}, {0.4, 0.6}, nil} // Z's video failed
	f, err := FitThreshold(pairs, sims, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.Threshold, 0.45) || !near(f.F1, 1) || !near(f.Precision, 1) || !near(f.Recall, 1) || f.Pairs != 2 {
		t.Fatalf("fit %+v, want threshold 0.45 with P = R = F1 = 1 over 2 pairs", f)
	}
	if got := Flag(sims[0], f.Threshold); !slices.Equal(got, []int8{0, 1, 0}) {
		t.Errorf("Flag: %v", got)
	}

	// With every sentence Incorrect, flagging everything is best: the
	// fit lies above every similarity.
	all := []*Pair{pair("A", Incorrect, Incorrect)}
	f, err = FitThreshold(all, [][]float64{{0.3, 0.7}}, Options{})
	if err != nil || !(f.Threshold > 0.7) || !near(f.F1, 1) {
		t.Fatalf("all Incorrect: %+v, %v", f, err)
	}
	if _, err := FitThreshold([]*Pair{pair("U", Unknown)}, [][]float64{{0.5}}, Options{}); err == nil {
		t.Error("a fit on Unknown sentences only succeeded")
	}
}

// With more distinct similarities than MaxCandidates, the fit tries
// quantiles and stays deterministic.
func TestFitThresholdManySentences(t *testing.T) {
	t.Parallel()
	p := &Pair{ID: "big", Type: 1, Duration: 1}
	var sims []float64
	for k := 0; k < 2000; k++ {
		l := Correct
		if k%7 == 0 {
			l = Incorrect
		}
		p.Sentences = append(p.Sentences, Sentence{Label: l})
		sims = append(sims, math.Sin(float64(k)))
	}
	a, err := FitThreshold([]*Pair{p}, [][]float64{sims}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FitThreshold([]*Pair{p}, [][]float64{sims}, Options{})
	if a != b || a.Pairs != 1 || math.IsNaN(a.Threshold) {
		t.Fatalf("fits %+v and %+v", a, b)
	}
}

func TestJoinFrameCaptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"a rabbit in a field", "a rabbit in a field", "A RABBIT IN A FIELD", "the rabbit yawns"}, "A rabbit in a field. The rabbit yawns."},
		{[]string{"  two  dogs run ,", "", "is it raining?"}, "Two dogs run. Is it raining?"},
		{[]string{"élan vital"}, "Élan vital."},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := JoinFrameCaptions(tt.in); got != tt.want {
			t.Errorf("JoinFrameCaptions(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Split(JoinFrameCaptions(tt.in)); len(tt.in) > 0 && len(got) != strings.Count(tt.want, ".")+strings.Count(tt.want, "?") {
			t.Errorf("the joined caption %q splits into %q", tt.want, got)
		}
	}
}

func TestVLMQuestionEndsWithTheLetters(t *testing.T) {
	t.Parallel()
	q := VLMQuestion([]string{"A dog runs.", "It barks."}, 1)
	if !strings.Contains(q, "Sentence 2: It barks.") || !strings.HasSuffix(q, "What is the label of sentence_2?\nA. 0 (faithful to the video)\nB. 1 (contains a hallucination)\nAnswer:") {
		t.Fatalf("question:\n%s", q)
	}
}

func TestReadCaptions(t *testing.T) {
	t.Parallel()
	in := `{"pair": "m/a.mp4", "video": "a.mp4", "source": "m", "caption": "A cat sits. It purrs.", "sentences": ["A cat sits.", "It purrs."]}
{"video": "b.mp4", "source": "m", "caption": "Dr. Who waves. He leaves."}
`
	pairs, err := ReadCaptions(strings.NewReader(in), "c.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || pairs[1].ID != "m/b.mp4" || len(pairs[1].Sentences) != 2 || pairs[1].Sentences[0].Text != "Dr. Who waves." || pairs[0].Sentences[1].Label != Unknown {
		t.Fatalf("pairs %+v %+v", pairs[0], pairs[1])
	}
	for _, bad := range []struct{ in, want string }{
		{`{"source": "m", "caption": "x"}`, "c.jsonl:1: field video: missing field"},
		{`{"video": "v", "source": "m"}`, "c.jsonl:1: field sentences: missing field"},
		{`{"video": "v", "source": "m", "caption": "  "}`, "c.jsonl:1: field sentences: empty value"},
		{`{"video": "v", "source": "m", "caption": "x"}` + "\n" + `{"video": "v", "source": "m", "caption": "y"}`, "c.jsonl:2: field pair: duplicate id"},
	} {
		if _, err := ReadCaptions(strings.NewReader(bad.in), "c.jsonl"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ReadCaptions(%q): %v, want %q", bad.in, err, bad.want)
		}
	}
}
