package textembed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack/attacktest"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

func itemTexts(items []*harness.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = textembed.ItemText(it)
	}
	return out
}

func pairSet(t testing.TB, m *kernels.Matrix, tau float32) map[[2]int32]bool {
	t.Helper()
	set := map[[2]int32]bool{}
	err := kernels.ThresholdJoin(context.Background(), m, nil, tau, kernels.Options{}, func(ps []kernels.Pair) error {
		for _, p := range ps {
			set[[2]int32{p.I, p.J}] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestDefaultWidthFindsTheSameNearDuplicatesAsAWideOne checks the choice of
// DefaultDim on real questions: at 0.90 the hashed rows must find nearly the
// pairs that 8192 columns (where collisions are 16 times rarer) find.
func TestDefaultWidthFindsTheSameNearDuplicatesAsAWideOne(t *testing.T) {
	t.Parallel()
	items := attacktest.LoadReal(t, "videohallucer.jsonl")
	texts := itemTexts(items)
	var sets []map[[2]int32]bool
	for _, dim := range []int{textembed.DefaultDim, 8192} {
		l := textembed.NewLexical(dim)
		l.Fit(texts)
		sets = append(sets, pairSet(t, embed(t, l, texts...), 0.90))
	}
	inter := 0
	for p := range sets[0] {
		if sets[1][p] {
			inter++
		}
	}
	union := len(sets[0]) + len(sets[1]) - inter
	agree := float64(inter) / float64(union)
	t.Logf("VideoHallucer pairs at 0.90: %d at width %d, %d at 8192, agreement (Jaccard) %.3f",
		len(sets[0]), textembed.DefaultDim, len(sets[1]), agree)
	if agree < 0.9 {
		t.Errorf("pair sets agree at %.3f, want >= 0.9", agree)
	}
}

// TestExactRepeatsAreIdenticalRows: items of the development data whose
// question and options read the same (up to case and punctuation) embed to
// the same row, so the copy attacker and the duplicate search find them.
func TestExactRepeatsAreIdenticalRows(t *testing.T) {
	t.Parallel()
	items := attacktest.LoadReal(t)
	texts := itemTexts(items)
	l := textembed.NewLexical(0)
	l.Fit(texts)
	m := embed(t, l, texts...)
	first := map[string]int{}
	repeats := 0
	for i, s := range texts {
		key := items[i].Benchmark + "|" + strings.ToLower(s)
		j, ok := first[key]
		if !ok {
			first[key] = i
			continue
		}
		repeats++
		if c := cosine(m, i, j); c < 0.9999 {
			t.Fatalf("%s and %s read the same but have cosine %.6f", items[i].ID, items[j].ID, c)
		}
	}
	t.Logf("%d items repeat an earlier item's text", repeats)
	if repeats == 0 {
		t.Error("no repeated item text in the development data; VideoHallucer has about 200")
	}
}

// BenchmarkLexicalEmbed embeds the question+options text of all four
// development files (fitted once) and reports texts per second.
func BenchmarkLexicalEmbed(b *testing.B) {
	texts := itemTexts(attacktest.LoadReal(b))
	l := textembed.NewLexical(0)
	l.Fit(texts)
	n := 0
	for b.Loop() {
		if _, err := l.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkLexicalFit fits the IDF on all four development files.
func BenchmarkLexicalFit(b *testing.B) {
	texts := itemTexts(attacktest.LoadReal(b))
	n := 0
	for b.Loop() {
		textembed.NewLexical(0).Fit(texts)
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}
