package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestReaderPromptIDsMatchTransformersJS: the token ids an ONNX lm_reader
// scores for an item (models.Prompting: the wording in the chat template,
// the "Answer:" prefill continued, no special tokens added) are the ids
// transformers.js's tokenizer.apply_chat_template gives the same chat with
// the same folder (the small models' lm_reader with Qwen2.5-VL's template
// in tokenizer_config.json), for every kind of prompt.
func TestReaderPromptIDsMatchTransformersJS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("testdata", "chattemplates", "qwen2.5-vl.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	lm := filepath.Join(dir, "lm_reader")
	cfg, _ := json.Marshal(map[string]any{"chat_template": string(tmpl)})
	if err := os.WriteFile(filepath.Join(lm, "tokenizer_config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
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
		chats = append(chats, map[string]any{"messages": []map[string]string{{"role": "user", "content": user}, {"role": "assistant", "content": w.Prefill}}})
	}
	var want []struct {
		Text string `json:"text"`
		IDs  []int  `json:"ids"`
	}
	runJS(t, "readerprompt.cjs", map[string]any{"dir": lm, "chats": chats}, &want)
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
}
