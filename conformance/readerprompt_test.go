package conformance

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestReaderPromptIDsMatchTransformersJS: the token ids an ONNX lm_reader
// scores for an item (models.Prompting: the wording in the chat template,
// the "Answer:" prefill continued, no special tokens added) are the ids
// transformers.js's tokenizer.apply_chat_template gives the same chat with
// the same folder (the small models' lm_reader with InternVL's template
// in tokenizer_config.json, its model.onnx also at onnx/model.onnx where
// transformers.js loads it), for every kind of prompt, and the letters'
// log-probabilities the reader gives are transformers.js's
// AutoModelForCausalLM's within 1e-4.
func TestReaderPromptIDsMatchTransformersJS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("testdata", "chattemplates", "internvl.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	lm := filepath.Join(dir, "lm_reader")
	cfg, _ := json.Marshal(map[string]any{"chat_template": string(tmpl)})
	if err := os.WriteFile(filepath.Join(lm, "tokenizer_config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	// transformers.js loads onnx/model.onnx, which models init writes.
	if _, err := os.Stat(filepath.Join(lm, "onnx", "model.onnx")); err != nil {
		t.Fatalf("models init wrote no lm_reader/onnx/model.onnx: %v", err)
	}
	p, err := models.LoadPrompting(lm, dir, nil)
	if err != nil || p.Chat == nil {
		t.Fatalf("prompting %+v, %v", p, err)
	}
	tok, err := models.LoadTokenizer(filepath.Join(lm, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	opts := []string{"a red cup", "the man opens the door", "two dogs run", "she laughs"}
	var prompts []letters.Prompt
	for _, parts := range []letters.Parts{
		{Kind: letters.KindOptionsOnly, Options: opts},
		{Kind: letters.KindBlind, Question: "What does the man do after the phone rings? «café», naïve", Options: opts},
		{Kind: letters.KindFrameCaptions, Question: "Who laughs?", Options: opts, Captions: []string{"a woman at a table", "a man with a phone"}},
		{Kind: letters.KindVideoCaption, Question: "Who laughs?", Options: opts[:2], Context: "A woman laughs at a table."},
		{Kind: letters.KindTranscript, Question: "What is said?", Options: opts[:3], Context: "hello there"},
		{Kind: letters.KindExamples, Question: "Who runs?", Options: opts, Context: "Example 1.\nQuestion: Who sits?\nOptions:\nA. a dog\nB. a cat\nAnswer: B. a cat"},
	} {
		prompts = append(prompts, letters.New(parts))
	}
	var chats []map[string]any
	w := letters.Default()
	for _, pr := range prompts {
		user, err := w.User(pr.Parts)
		if err != nil {
			t.Fatal(err)
		}
		chats = append(chats, map[string]any{"messages": []map[string]string{{"role": "user", "content": user}, {"role": "assistant", "content": w.Prefill}},
			"options": pr.Options})
	}
	var want []struct {
		Text    string    `json:"text"`
		IDs     []int     `json:"ids"`
		Letters []float64 `json:"letters"`
	}
	runJS(t, "readerprompt.cjs", map[string]any{"dir": lm, "chats": chats, "model": true, "max_length": 120}, &want)
	if len(want) != len(prompts) {
		t.Fatalf("%d renderings for %d prompts", len(want), len(prompts))
	}
	for i, pr := range prompts {
		text, special, err := p.Text(pr)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := tok.Encode(text, special)
		if err != nil {
			t.Fatal(err)
		}
		if text != want[i].Text || special {
			t.Errorf("%s: text\ngo %q (special tokens %v)\njs %q", pr.Parts.Kind, text, special, want[i].Text)
		}
		if !slices.Equal(ids, want[i].IDs) {
			t.Errorf("%s: ids\ngo %v\njs %v", pr.Parts.Kind, ids, want[i].IDs)
		}
	}
	t.Logf("%d reader prompts: text and ids equal", len(prompts))

	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		unavailable(t, "ONNX Runtime: "+err.Error())
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := rt.OpenLetterScorer(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The prompts that fit the small reader's 120 positions (its
	// manifest's max_length); the others it refuses, as transformers.js's
	// model, whose 128 positions they overrun, cannot read them.
	var fit []letters.Prompt
	var wantFit [][]float64
	for i, pr := range prompts {
		_, err := s.Encode(pr)
		if (err == nil) != (want[i].Letters != nil) {
			t.Fatalf("%s: the reader's Encode says %v; transformers.js scored %d letters for %d ids", pr.Parts.Kind, err, len(want[i].Letters), len(want[i].IDs))
		}
		if err == nil {
			fit, wantFit = append(fit, pr), append(wantFit, want[i].Letters)
		}
	}
	if len(fit) < 3 {
		t.Fatalf("only %d of %d prompts fit the small reader", len(fit), len(prompts))
	}
	got, err := s.Score(context.Background(), fit)
	if err != nil {
		t.Fatal(err)
	}
	worst, n := 0.0, 0
	for i := range fit {
		if len(got[i]) != len(wantFit[i]) {
			t.Fatalf("%s: %d letters, transformers.js %d", fit[i].Parts.Kind, len(got[i]), len(wantFit[i]))
		}
		for j := range got[i] {
			worst = math.Max(worst, math.Abs(got[i][j]-wantFit[i][j]))
			n++
		}
	}
	if worst > 1e-4 {
		t.Errorf("letters' log-probabilities differ from transformers.js by %g, want at most 1e-4", worst)
	}
	t.Logf("%d letters of %d prompts: max |difference| from transformers.js %.3g", n, len(fit), worst)
}
