package vidomni

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// synthetic builds n pairs of 20 sentences (a sixth Unknown, a third of
// the rest Incorrect) and, per verifier, labels for half the pairs and a
// reply for the other half, as a benchmark of the paper's size would have
// (2,500 pairs, 5 verifiers).
func synthetic(n, verifiers int) ([]*Pair, []*Verdict) {
	r := rand.New(rand.NewPCG(1, 2))
	pairs := make([]*Pair, n)
	for i := range pairs {
		p := &Pair{ID: fmt.Sprintf("p%d", i), Video: fmt.Sprintf("v%d", i/5), Source: fmt.Sprintf("m%d", i%verifiers), Type: 1 + i%5, Duration: float64(4 + r.IntN(5400))}
		for k := 0; k < 20; k++ {
			s := Sentence{Text: "A sentence.", Label: Correct}
			switch x := r.IntN(6); {
			case x == 0:
				s.Label = Unknown
			case x <= 2:
				s.Label, s.Categories = Incorrect, []string{Categories[r.IntN(len(Categories))]}
			}
			p.Sentences = append(p.Sentences, s)
		}
		pairs[i] = p
	}
	var vs []*Verdict
	for v := 0; v < verifiers; v++ {
		for i, p := range pairs {
			labels := make([]int8, len(p.Sentences))
			for k := range labels {
				labels[k] = int8(r.IntN(2))
			}
			vd := &Verdict{Pair: p.ID, Verifier: fmt.Sprintf("m%d", v)}
			if i%2 == 0 {
				vd.Labels = labels
			} else {
				reply := FormatReply(labels) + "\nSentence 1 is faithful."
				vd.Reply = &reply
			}
			vs = append(vs, vd)
		}
	}
	return pairs, vs
}

// BenchmarkScore scores 5 verifiers on 2,500 pairs (the paper's size),
// half of the verdicts raw replies to parse; reports pair verdicts per
// second.
func BenchmarkScore(b *testing.B) {
	pairs, vs := synthetic(2500, 5)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Score(pairs, vs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(vs))*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkSplit splits a dense caption of the paper's mean length (about
// 580 words, table 10) with abbreviations, decimals and quotes; reports
// sentences per second.
func BenchmarkSplit(b *testing.B) {
	para := `The video opens with Mr. Lee, approx. 1.8 m tall, walking past a sign that reads "Exit." and into a U.S. Army depot at 5 p.m. He picks up a crate, e.g. one of the wooden ones... then sets it down! Does he stay? "No," he says.`
	text := strings.Repeat(para+"\n", 13)
	n := len(Split(text))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		Split(text)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "sentences/s")
}

// BenchmarkFitThreshold fits the similarity threshold on 3,200 pairs of 20
// sentences (64,000, the paper's count); reports sentences per second.
func BenchmarkFitThreshold(b *testing.B) {
	pairs, _ := synthetic(3200, 5)
	r := rand.New(rand.NewPCG(3, 4))
	sims := make([][]float64, len(pairs))
	n := 0
	for i, p := range pairs {
		sims[i] = make([]float64, len(p.Sentences))
		for k := range sims[i] {
			sims[i][k] = r.Float64()*0.4 - 0.1
		}
		n += len(p.Sentences)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := FitThreshold(pairs, sims, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "sentences/s")
}
