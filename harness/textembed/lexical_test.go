package textembed_test

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

func cosine(m *kernels.Matrix, i, j int) float64 {
	var s float64
	a, b := m.Row(i), m.Row(j)
	for k := range a {
		s += float64(a[k]) * float64(b[k])
	}
	return s
}

func embed(t testing.TB, l *textembed.Lexical, texts ...string) *kernels.Matrix {
	t.Helper()
	m, err := l.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != len(texts) || m.Cols != l.Dim() {
		t.Fatalf("%dx%d matrix for %d texts at width %d", m.Rows, m.Cols, len(texts), l.Dim())
	}
	return m
}

func TestLexicalSimilarities(t *testing.T) {
	t.Parallel()
	corpus := []string{
		"Which object was tidied up by the person?",
		"Which object was thrown by the person?",
		"What did the person take after they closed the door?",
		"How does the man feel when the woman runs up to him?",
		"Is there a baby in the video?",
		"Is there a doll in the video?",
	}
	l := textembed.NewLexical(0)
	l.Fit(corpus)
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"identical texts", "Is there a baby in the video?", "Is there a baby in the video?", 0.9999, 1.0001},
		{"case and punctuation do not count", "Is there a BABY in the video?!", "is there a baby, in the video", 0.9999, 1.0001},
		{"two words changed stay near", "Which object was tidied up by the person?", "Which object was thrown by the person?", 0.5, 0.95},
		{"word order counts a little", "the man runs to the woman", "the woman runs to the man", 0.75, 0.9999},
		{"unrelated questions are far", "Is there a baby in the video?", "How does the man feel when the woman runs up to him?", -0.2, 0.3},
		{"a spelling variant keeps character overlap", "tidied", "tidies", 0.2, 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := embed(t, l, tt.a, tt.b)
			if c := cosine(m, 0, 1); c < tt.min || c > tt.max {
				t.Errorf("cosine %.4f, want in [%.2f, %.2f]", c, tt.min, tt.max)
			}
		})
	}
}

func TestLexicalRowsAreUnitOrZero(t *testing.T) {
	t.Parallel()
	l := textembed.NewLexical(64)
	texts := []string{"", "?!", "a", "Grüße aus Köln", "日本語のテキスト", "x y z x y z"}
	m := embed(t, l, texts...)
	for i, s := range texts {
		n := math.Sqrt(cosine(m, i, i))
		want := 1.0
		if s == "" || s == "?!" {
			want = 0
		}
		if math.Abs(n-want) > 1e-6 {
			t.Errorf("%q: norm %.6f, want %v", s, n, want)
		}
	}
}

func TestFitDownweightsCommonWords(t *testing.T) {
	t.Parallel()
	var corpus []string
	for i := 0; i < 50; i++ {
		corpus = append(corpus, "the video shows something")
	}
	corpus = append(corpus, "the cat", "the dog")
	fitted, plain := textembed.NewLexical(0), textembed.NewLexical(0)
	fitted.Fit(corpus)
	a := cosine(embed(t, plain, "the cat", "the dog"), 0, 1)
	b := cosine(embed(t, fitted, "the cat", "the dog"), 0, 1)
	if !(b < a) {
		t.Errorf("cosine of 'the cat' and 'the dog' is %.3f after fitting, %.3f before: the common 'the' should count less", b, a)
	}
	if plain.Name() == fitted.Name() {
		t.Errorf("fitted and unfitted embedders share the name %q", plain.Name())
	}
}

func TestLexicalIsDeterministicAtAnyParallelism(t *testing.T) {
	var texts []string
	for i := 0; i < 3000; i++ {
		texts = append(texts, string(rune('a'+i%26))+" question number "+string(rune('A'+i%7))+" about the clip")
	}
	l := textembed.NewLexical(0)
	l.Fit(texts)
	prev := runtime.GOMAXPROCS(1)
	one := embed(t, l, texts...)
	runtime.GOMAXPROCS(4)
	four := embed(t, l, texts...)
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(one.Data, four.Data) {
		t.Error("rows differ between 1 and 4 procs")
	}
}

func TestEmbedStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := textembed.NewLexical(0).Embed(ctx, []string{"a", "b"}); err == nil {
		t.Error("no error from a cancelled context")
	}
}

func TestItemTexts(t *testing.T) {
	t.Parallel()
	it := &harness.Item{Question: "Why?", Options: []string{"because", "no reason"}}
	if got := textembed.QuestionText(it); got != "Why?" {
		t.Errorf("QuestionText = %q", got)
	}
	if got := textembed.ItemText(it); got != "Why?\nbecause\nno reason" {
		t.Errorf("ItemText = %q", got)
	}
}

func TestNameTellsFitsApart(t *testing.T) {
	t.Parallel()
	a, b, c := textembed.NewLexical(0), textembed.NewLexical(0), textembed.NewLexical(0)
	a.Fit([]string{"a cat", "a dog"})
	b.Fit([]string{"a cow", "a pig"})
	c.Fit([]string{"a cat", "a dog"})
	if a.Name() == b.Name() {
		t.Errorf("two corpora of the same size share the name %q", a.Name())
	}
	if a.Name() != c.Name() {
		t.Errorf("the same corpus gives names %q and %q", a.Name(), c.Name())
	}
	if textembed.NewLexical(256).Name() == textembed.NewLexical(512).Name() {
		t.Error("widths share a name")
	}
}
