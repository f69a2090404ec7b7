package models

import (
	"context"
	"hash/fnv"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// wordTokenizer is a test double for a BERT-style tokenizer: lowercase,
// split on spaces; single letters a..z get BERT's uncased ids (1037..1062
// in bert-base-uncased's vocab.txt), other words an id hashed into
// [2000, 30000); specials are [CLS] 101 and [SEP] 102.
type wordTokenizer struct{}

func (wordTokenizer) Encode(text string, addSpecial bool) ([]int, error) {
	var ids []int
	if addSpecial {
		ids = append(ids, 101)
	}
	for _, w := range strings.Fields(strings.ToLower(text)) {
		ids = append(ids, wordID(w))
	}
	if addSpecial {
		ids = append(ids, 102)
	}
	return ids, nil
}

func wordID(w string) int {
	if len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' {
		return 1037 + int(w[0]-'a')
	}
	h := fnv.New32a()
	h.Write([]byte(w))
	return 2000 + int(h.Sum32()%28000)
}

func (wordTokenizer) TokenID(s string) (int, bool) { return wordID(s), true }

func (wordTokenizer) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id == 101 || id == 102 || id == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if id >= 1037 && id <= 1062 {
			b.WriteByte(byte('a' + id - 1037))
		} else {
			b.WriteString("w" + itoa(id))
		}
	}
	return b.String()
}

func openLetterScorer(t *testing.T) *LetterScorer {
	rt, dir := tinyModels(t)
	s, err := rt.NewSession(filepath.Join(dir, "lm", "model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ls, err := NewLetterScorer(s, wordTokenizer{}, RoleSpec{MaxLength: 120})
	if err != nil {
		t.Fatal(err)
	}
	ls.MaxBatch = 3
	return ls
}

// refLetters computes the letter log-probabilities of one prompt directly.
func refLetters(ids []int, letters letterSet, n int) []float64 {
	lm := fixtures.lm
	logits := lm.Logits(lm.Embed(ids), onnxbuild.Mat{})
	return letters.score(logits.Row(logits.Rows-1), n)
}

func TestLetterScorerMatchesReference(t *testing.T) {
	ls := openLetterScorer(t)
	prompts := []letters.Prompt{
		{Text: "question: what is the man holding? options: a. a cup b. a phone answer:", Options: 2},
		{Text: "why did the boy run", Options: 4},
		{Text: "a", Options: 5},
		{Text: strings.Repeat("long prompt words ", 30) + "answer:", Options: 3},
		{Text: "which option? a. red b. green c. blue d. yellow e. black answer", Options: 5},
	}
	got, err := ls.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range prompts {
		ids, _ := wordTokenizer{}.Encode(p.Text, true)
		want := refLetters(ids, ls.letters, p.Options)
		if len(got[i]) != p.Options {
			t.Fatalf("prompt %d: %d scores, want %d", i, len(got[i]), p.Options)
		}
		var total float64
		for k := range want {
			if math.Abs(got[i][k]-want[k]) > 1e-4 {
				t.Fatalf("prompt %d letter %c: log p %g, want %g", i, 'A'+k, got[i][k], want[k])
			}
			if got[i][k] > 0 {
				t.Fatalf("prompt %d letter %c: log p %g > 0", i, 'A'+k, got[i][k])
			}
			total += math.Exp(got[i][k])
		}
		if total > 1+1e-9 {
			t.Fatalf("prompt %d: letter probabilities sum to %g", i, total)
		}
		one, err := ls.Score(context.Background(), prompts[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		for k := range one[0] {
			if math.Abs(one[0][k]-got[i][k]) > 1e-6 {
				t.Fatalf("prompt %d letter %c: alone %g, batched %g", i, 'A'+k, one[0][k], got[i][k])
			}
		}
	}
}

func TestLetterScorerRejectsBadPrompts(t *testing.T) {
	ls := openLetterScorer(t)
	for _, tc := range []struct {
		name string
		p    letters.Prompt
	}{
		{"one option", letters.Prompt{Text: "q", Options: 1}},
		{"seventeen options", letters.Prompt{Text: "q", Options: 17}},
		{"a prompt over max_length", letters.Prompt{Text: strings.Repeat("w ", 200), Options: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ls.Score(context.Background(), []letters.Prompt{tc.p}); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestLetterVariantsMergeByLogSumExp(t *testing.T) {
	t.Parallel()
	logits := []float32{1, 2, 3, 0.5}
	lz := math.Log(math.Exp(1) + math.Exp(2) + math.Exp(3) + math.Exp(0.5))
	set := letterSet{{0, 2}, {1}}
	got := set.score(logits, 2)
	want := []float64{math.Log(math.Exp(1)+math.Exp(3)) - lz, 2 - lz}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("letter %d: %g, want %g", i, got[i], want[i])
		}
	}
}

func TestLetterSetNeedsASingleTokenVariant(t *testing.T) {
	t.Parallel()
	if _, err := newLetterSet(wordTokenizer{}, []string{"{L} {L}"}); err == nil {
		t.Fatal("a two-token variant was accepted as the only one")
	}
	set, err := newLetterSet(wordTokenizer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set[0]) != 1 || set[0][0] != 1037 {
		t.Fatalf("letter A: ids %v, want [1037] (\"A\" and \" A\" merge)", set[0])
	}
}

// TestLetterScorerWithoutCacheInputs runs the same LM exported without
// past_key_values inputs: the scores must not change.
func TestLetterScorerWithoutCacheInputs(t *testing.T) {
	rt, _ := tinyModels(t)
	dir := t.TempDir()
	if err := fixtures.lm.WriteLMDir(dir, false); err != nil {
		t.Fatal(err)
	}
	s, err := rt.NewSession(filepath.Join(dir, "model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.Input("past_key_values.0.key"); ok {
		t.Fatal("model has cache inputs")
	}
	plain, err := NewLetterScorer(s, wordTokenizer{}, RoleSpec{MaxLength: 120})
	if err != nil {
		t.Fatal(err)
	}
	cached := openLetterScorer(t)
	prompts := []letters.Prompt{{Text: "why did the boy run", Options: 4}, {Text: "what is the man doing answer", Options: 3}}
	a, err := plain.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cached.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		for k := range a[i] {
			if math.Abs(a[i][k]-b[i][k]) > 1e-5 {
				t.Fatalf("prompt %d letter %c: %g without cache inputs, %g with", i, 'A'+k, a[i][k], b[i][k])
			}
		}
	}
}

// TestLetterScorerWithLogitsToKeep runs the LM exported with a
// num_logits_to_keep input: the scorer pads on the left and asks for the
// last position only, and must give the reference's letter scores.
func TestLetterScorerWithLogitsToKeep(t *testing.T) {
	rt, _ := tinyModels(t)
	cfg := onnxbuild.TinyLM
	cfg.LogitsToKeep = true
	lm := onnxbuild.NewLM(cfg, 3) // the fixture LM's weights
	dir := t.TempDir()
	if err := lm.WriteLMDir(dir, true); err != nil {
		t.Fatal(err)
	}
	s, err := rt.NewSession(filepath.Join(dir, "model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ls, err := NewLetterScorer(s, wordTokenizer{}, RoleSpec{MaxLength: 120})
	if err != nil {
		t.Fatal(err)
	}
	if ls.keep != "num_logits_to_keep" {
		t.Fatalf("keep input %q", ls.keep)
	}
	ls.MaxBatch = 4
	prompts := []letters.Prompt{
		{Text: "why did the boy run", Options: 4},
		{Text: "a", Options: 2},
		{Text: strings.Repeat("long prompt words ", 20) + "answer:", Options: 5},
		{Text: "what is the man doing answer", Options: 3},
		{Text: "which one", Options: 2},
	}
	got, err := ls.Score(context.Background(), prompts)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range prompts {
		ids, _ := wordTokenizer{}.Encode(p.Text, true)
		want := refLetters(ids, ls.letters, p.Options)
		for k := range want {
			if math.Abs(got[i][k]-want[k]) > 1e-4 {
				t.Fatalf("prompt %d letter %c: %g, want %g", i, 'A'+k, got[i][k], want[k])
			}
		}
	}
}
