package models_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

func TestReadPromptItem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		frames     int
		want       letters.Kind
		errHas     string
	}{
		{"blind by default", `{"question": "q", "options": ["a", "b"]}`, 0, letters.KindBlind, ""},
		{"visual with frames", `{"question": "q", "options": ["a", "b"]}`, 2, letters.KindVisual, ""},
		{"a kind", `{"kind": "options_only", "options": ["a", "b"]}`, 0, letters.KindOptionsOnly, ""},
		{"an unknown field", `{"question": "q", "options": ["a", "b"], "answer": 1}`, 0, "", `unknown field "answer"`},
		{"a null option list", `{"question": "q", "options": null}`, 0, "", "options: 0 options"},
		{"one option", `{"question": "q", "options": ["a"]}`, 0, "", "options: 1 options"},
		{"an unknown kind", `{"kind": "audio", "options": ["a", "b"]}`, 0, "", `kind: "audio"`},
		{"options of the wrong type", `{"options": [1, 2]}`, 0, "", "options"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := models.ReadPromptItem(path, tc.frames)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: error %v, want one naming the file and %q", tc.name, err, tc.errHas)
			}
			continue
		}
		if err != nil || p.Kind != tc.want || p.Frames != tc.frames || len(p.Options) != 2 {
			t.Errorf("%s: %+v, %v", tc.name, p, err)
		}
	}
}

// TestPromptDir: `models prompt` on the project's models prints the
// prompt the lm_reader reads (the authors' wording, plain: the folder has
// no chat template), its ids and the scores the reader gives.
func TestPromptDir(t *testing.T) {
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	item := filepath.Join(dir, "item.json")
	if err := os.WriteFile(item, []byte(`{"question": "what is red?", "options": ["a cup", "the sky", "grass"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := models.RuntimeOptions{Threads: 1}
	rep, err := models.PromptDir(context.Background(), dir, opts, models.RoleLMReader, item, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := letters.New(letters.Parts{Kind: letters.KindBlind, Question: "what is red?", Options: []string{"a cup", "the sky", "grass"}})
	// models init's lm_reader holds a ChatML template (tokenizer_config.json)
	// whose turn markers are single tokens of its vocabulary.
	if rep.Wording != letters.DefaultID || rep.ChatTemplate != filepath.Join(dir, "lm_reader", "tokenizer_config.json") || len(rep.Letters) != 3 ||
		!strings.HasPrefix(rep.Prompt, "<|im_start|>system\n") || !strings.Contains(rep.Prompt, "<|im_start|>user\n") || !strings.Contains(rep.Prompt, "Question: "+p.Parts.Question+"\n") ||
		!strings.HasSuffix(rep.Prompt, "<|im_start|>assistant\nAnswer:") {
		t.Fatalf("report %+v", rep)
	}
	if rep.IDs[0] != 2 {
		t.Errorf("the prompt starts with id %d; want <|im_start|>, one token (2)", rep.IDs[0])
	}
	rt, err := models.NewRuntime(opts)
	if err != nil {
		t.Fatal(err)
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
	ids, err := s.Encode(p)
	if err != nil || !slices.Equal(ids, rep.IDs) {
		t.Fatalf("ids %v, report %v (%v)", ids, rep.IDs, err)
	}
	want, err := s.Score(context.Background(), []letters.Prompt{p})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range want[0] {
		if got := rep.Letters[letters.LetterName(j)]; math.Abs(got-v) > 0 {
			t.Errorf("letter %s: %v, the reader gives %v", letters.LetterName(j), got, v)
		}
	}
	if _, err := models.PromptDir(context.Background(), dir, opts, models.RoleCaptioner, item, nil); err == nil {
		t.Error("models prompt on the captioner: no error")
	}
}
