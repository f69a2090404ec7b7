package main

import (
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
)

// TestModelsPrompt: `models prompt` prints the lm_reader's prompt in the
// authors' wording, its ids and one score per option; with frames, the
// vlm_reader's prompt has the frames first (-1 ids for their rows); a
// prompts.json changes the wording and names it by its hash; bad input is
// refused by name.
func TestModelsPrompt(t *testing.T) {
	dir := initModelsCopy(t)
	item := filepath.Join(t.TempDir(), "item.json")
	if err := os.WriteFile(item, []byte(`{"question": "what is red?", "options": ["a cup", "the sky", "grass"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(args ...string) models.PromptReport {
		t.Helper()
		code, out, errOut := runModels("", append([]string{"prompt", "--threads", "1"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep models.PromptReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return rep
	}
	rep := read("--item", item, dir)
	want := letters.New(letters.Parts{Kind: letters.KindBlind, Question: "what is red?", Options: []string{"a cup", "the sky", "grass"}}).Text
	// models init's readers hold a ChatML template: the wording is the
	// user turn, "Answer:" the assistant turn continued.
	user := strings.TrimSuffix(want, "\nAnswer:")
	if rep.Role != models.RoleLMReader || !strings.Contains(rep.Prompt, "<|im_start|>user\n"+user+"<|im_end|>\n<|im_start|>assistant\nAnswer:") ||
		len(rep.IDs) == 0 || len(rep.Letters) != 3 || rep.Wording != letters.DefaultID || filepath.Base(rep.ChatTemplate) != "tokenizer_config.json" {
		t.Errorf("lm_reader report %+v", rep)
	}
	frame := filepath.Join(t.TempDir(), "f.png")
	writeRedPNG(t, frame)
	rep = read("--role", "vlm_reader", "--item", item, "--frames", frame+","+frame, dir)
	if !strings.Contains(rep.Prompt, "<|im_start|>user\n"+models.ImagePlaceholder+models.ImagePlaceholder+"You are given 2 frame(s) sampled from a video.") || !slices.Contains(rep.IDs, -1) || len(rep.Letters) != 3 {
		t.Errorf("vlm_reader report %+v", rep)
	}
	if err := os.WriteFile(filepath.Join(dir, letters.PromptFile), []byte(`{"blind": "Q: {question}\n{options}"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep = read("--item", item, dir); !strings.Contains(rep.Prompt, "<|im_start|>user\nQ: what is red?\nA. a cup\nB. the sky\nC. grass<|im_end|>\n<|im_start|>assistant\nAnswer:") || !strings.HasPrefix(rep.Wording, "sha256:") {
		t.Errorf("with prompts.json: %+v", rep)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"question": "q", "options": ["a", "b"], "gold": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runModels("", "prompt", "--item", bad, dir); code != 2 || !strings.Contains(errOut, `bad.json: json: unknown field "gold"`) {
		t.Errorf("bad item: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runModels("", "prompt", dir); code != 2 || !strings.Contains(errOut, "--item FILE is required") {
		t.Errorf("no item: exit %d, %s", code, errOut)
	}
}

// writeRedPNG writes a 64x48 red frame.
func writeRedPNG(t *testing.T, path string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+3] = 200, 255
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
