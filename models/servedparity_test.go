package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/chattemplate"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
	"github.com/vidscreen/vidscreen/models/served"
)

// parityTemplate is a ChatML template in the form of Qwen2's, short enough
// for the tiny LM's 128 positions.
const parityTemplate = "{% for m in messages %}<|{{ m['role'] }}|>{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}{% if not loop.last or m['role'] != 'assistant' %}<|end|>{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"

// casedTokenizer is the project's WordPiece tokenizer with capital letters
// (A-Z and ##A-##Z in place of [unused0..51]) and no lower-casing, so that
// the option letters are the tokens "A", "B", ... a server reports and the
// authors' letter regex reads.
func casedTokenizer(t *testing.T) []byte {
	var doc map[string]any
	if err := json.Unmarshal(onnxbuild.WordPieceTokenizer(), &doc); err != nil {
		t.Fatal(err)
	}
	doc["normalizer"].(map[string]any)["lowercase"] = false
	vocab := doc["model"].(map[string]any)["vocab"].(map[string]any)
	for i := range 26 {
		for k, tok := range []string{string(rune('A' + i)), "##" + string(rune('A'+i))} {
			old := fmt.Sprintf("[unused%d]", 2*i+k)
			id := vocab[old]
			delete(vocab, old)
			vocab[tok] = id
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServedAndONNXReadersAgree serves the built lm_reader behind the test
// server the way vLLM serves a model (the request's chat rendered with the
// folder's chat template, continue_final_message cutting after the
// "Answer:" prefill, the text tokenized without added special tokens, the
// letters' probabilities from the model's log-softmax reported as the top
// tokens) and reads the same folder on ONNX: the two readers' letter
// scores agree within 1e-4 on the authors' prompts. Without the chat
// template the ONNX reader reads another prompt and disagrees.
func TestServedAndONNXReadersAgree(t *testing.T) {
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lm := filepath.Join(dir, "lm_reader")
	if err := onnxbuild.NewLM(onnxbuild.TinyLM, 3).WriteLMDir(lm, true); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"chat_template": parityTemplate})
	for name, data := range map[string][]byte{
		filepath.Join(lm, "tokenizer.json"):        casedTokenizer(t),
		filepath.Join(lm, "tokenizer_config.json"): cfg,
		filepath.Join(dir, models.ManifestFile):    []byte(`{"roles": {"lm_reader": {"dir": "lm_reader", "max_length": 128}}}`),
		// The authors' wording runs past the tiny LM's 128 positions in
		// its WordPiece pieces: a prompt file words it shorter, for both
		// readers.
		filepath.Join(dir, letters.PromptFile): []byte(`{"options_only": "Options:\n{options}\nLetter?", "blind": "Q: {question}\n{options}", "transcript": "Heard: {context}\nQ: {question}\n{options}"}`),
	} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	onnx, err := rt.OpenLetterScorer(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	if onnx.Prompting.Chat == nil {
		t.Fatal("the ONNX reader did not load the folder's chat template")
	}
	tok, err := models.LoadTokenizer(filepath.Join(lm, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	chat := onnx.Prompting.Chat
	ctx := context.Background()
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		msgs := make([]chattemplate.Message, len(r.Messages))
		for i, m := range r.Messages {
			msgs[i] = chattemplate.Message{Role: m.Role, Content: m.Text}
		}
		var text string
		var err error
		if r.ContinueFinalMessage {
			text, err = chat.RenderContinue(msgs)
		} else {
			text, err = chat.Render(msgs, r.AddGenerationPrompt == nil || *r.AddGenerationPrompt)
		}
		if err != nil {
			panic(err)
		}
		ids, err := tok.Encode(text, false)
		if err != nil {
			panic(err)
		}
		lp, err := onnx.ScoreIDs(ctx, [][]int{ids}, []int{models.MaxOptions})
		if err != nil {
			panic(err)
		}
		top, rest := map[string]float64{}, 1.0
		for j, v := range lp[0] {
			top[letters.LetterName(j)] = math.Exp(v)
			rest -= math.Exp(v)
		}
		top["[UNK]"] = rest // every other token, as one
		return openaitest.Reply{Top: top}
	}})
	defer srv.Close()
	wording, err := letters.LoadWording(dir)
	if err != nil {
		t.Fatal(err)
	}
	if onnx.Prompting.Wording.ID != wording.ID || wording.ID == letters.DefaultID {
		t.Fatalf("wordings %q (ONNX) and %q (file)", onnx.Prompting.Wording.ID, wording.ID)
	}
	sv, err := served.NewLetters(served.Config{Role: "lm_reader", Server: models.ServerSettings{URL: srv.BaseURL(), Model: "test-model", Concurrency: 2, Timeout: 10 * time.Second}, Wording: wording})
	if err != nil {
		t.Fatal(err)
	}
	opts := []string{"a red cup", "the blue door", "two dogs", "a green car"}
	prompts := []letters.Prompt{
		letters.New(letters.Parts{Kind: letters.KindOptionsOnly, Options: opts}),
		letters.New(letters.Parts{Kind: letters.KindBlind, Question: "what opens?", Options: opts}),
		letters.New(letters.Parts{Kind: letters.KindTranscript, Question: "what is heard?", Options: opts[:3], Context: "a dog barks"}),
	}
	want, err := onnx.Score(ctx, prompts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sv.Score(ctx, prompts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range prompts {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("prompt %d: served %v, ONNX %v", i, got[i], want[i])
		}
		for j := range want[i] {
			worst = math.Max(worst, math.Abs(got[i][j]-want[i][j]))
		}
	}
	if worst > 1e-4 {
		t.Errorf("served and ONNX letter scores differ by %g, want at most 1e-4:\nserved %v\nONNX   %v", worst, got, want)
	}
	t.Logf("served vs ONNX: %d prompts, max |difference| of the letters' log-probabilities %.3g", len(prompts), worst)

	// The same model read without its chat template (the plain prompt)
	// scores other letters: the agreement above is the template's doing.
	plain, err := rt.OpenLetterScorer(m, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	plain.Prompting = models.Prompting{Wording: wording}
	raw, err := plain.Score(ctx, prompts)
	if err != nil {
		t.Fatal(err)
	}
	apart := 0.0
	for i := range prompts {
		for j := range raw[i] {
			apart = math.Max(apart, math.Abs(raw[i][j]-want[i][j]))
		}
	}
	if apart < 1e-3 {
		t.Errorf("the plain prompt scores within %g of the templated one; the test cannot tell them apart", apart)
	}
	t.Logf("plain vs templated prompt on ONNX: max |difference| %.3g", apart)
}
