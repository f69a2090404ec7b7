package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/chattemplate"
	"github.com/vidscreen/vidscreen/models/letters"
)

// chatCase is one chat rendered with one template.
type chatCase struct {
	name      string
	msgs      []chattemplate.Message
	gen       bool // add_generation_prompt
	continue_ bool
}

// jsMessages writes msgs as the chat template reads them (content a string
// or a list of {"type": "text"|"image"} parts).
func jsMessages(msgs []chattemplate.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		if len(m.Parts) == 0 {
			out[i] = map[string]any{"role": m.Role, "content": m.Content}
			continue
		}
		var parts []any
		for _, p := range m.Parts {
			if p.Image {
				parts = append(parts, map[string]any{"type": "image"})
			} else {
				parts = append(parts, map[string]any{"type": "text", "text": p.Text})
			}
		}
		out[i] = map[string]any{"role": m.Role, "content": parts}
	}
	return out
}

// readerChats are the chats the readers send: the authors' prompts, as
// text and with frames, with the generation prompt and with the "Answer:"
// prefill continued, and a system turn.
func readerChats(withImages, stringContent, systemString bool) []chatCase {
	w := letters.Default()
	blind, _ := w.User(letters.Parts{Kind: letters.KindBlind, Question: "What does the man pick up after the phone rings? «café», naïve 🙂", Options: []string{"a cup", "the phone", "his keys", "a book"}})
	opts, _ := w.User(letters.Parts{Kind: letters.KindOptionsOnly, Options: []string{"red", "blue"}})
	visual, _ := w.User(letters.Parts{Kind: letters.KindVisual, Question: "Which way does the car turn?", Options: []string{"left", "right", "it does not"}, Frames: 3})
	text := func(role, s string) chattemplate.Message {
		if stringContent {
			return chattemplate.Message{Role: role, Content: s}
		}
		return chattemplate.Message{Role: role, Parts: []chattemplate.Part{{Text: s}}}
	}
	prefill := text("assistant", w.Prefill)
	system := text("system", "You answer multiple-choice questions.")
	if systemString { // Llama 3.2's template trims the system text
		system = chattemplate.Message{Role: "system", Content: "You answer multiple-choice questions."}
	}
	cases := []chatCase{
		{name: "blind, generation prompt", msgs: []chattemplate.Message{text("user", blind)}, gen: true},
		{name: "blind, prefill continued", msgs: []chattemplate.Message{text("user", blind), prefill}, continue_: true},
		{name: "options only, whole chat", msgs: []chattemplate.Message{text("user", opts), prefill}},
		{name: "system turn", msgs: []chattemplate.Message{system, text("user", opts)}, gen: true},
	}
	if withImages {
		frames := []chattemplate.Part{{Image: true}, {Image: true}, {Image: true}, {Text: visual}}
		cases = append(cases,
			chatCase{name: "3 frames, generation prompt", msgs: []chattemplate.Message{{Role: "user", Parts: frames}}, gen: true},
			chatCase{name: "3 frames, prefill continued", msgs: []chattemplate.Message{{Role: "user", Parts: frames}, prefill}, continue_: true},
			chatCase{name: "1 frame, whole chat", msgs: []chattemplate.Message{{Role: "user", Parts: []chattemplate.Part{{Image: true}, {Text: visual}}}, prefill}},
		)
	}
	return cases
}

// TestChatTemplatesMatchHuggingFaceJinja renders the readers' chats with
// real models' chat templates in Go and with @huggingface/jinja: the texts
// must be equal byte for byte.
func TestChatTemplatesMatchHuggingFaceJinja(t *testing.T) {
	t.Parallel()
	special := map[string]string{"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}
	for _, tc := range []struct {
		file                                string
		images, stringContent, systemString bool
	}{
		{"qwen2.5-vl.jinja", true, false, false},
		{"qwen2.5-vl.jinja", false, true, true},
		{"llava-onevision.jinja", true, false, false},
		{"internvl.jinja", true, false, false},
		{"internvl.jinja", false, true, true},
		{"llama-3.1.jinja", false, true, true},
		{"llama-3.2-vision.jinja", true, false, true},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "chattemplates", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := chattemplate.Parse(tc.file, string(b), special)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		chats := readerChats(tc.images, tc.stringContent, tc.systemString)
		var in []map[string]any
		var got []string
		for _, c := range chats {
			var s string
			if c.continue_ {
				s, err = tmpl.RenderContinue(c.msgs)
			} else {
				s, err = tmpl.Render(c.msgs, c.gen)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.file, c.name, err)
			}
			got = append(got, s)
			in = append(in, map[string]any{"template": string(b), "messages": jsMessages(c.msgs), "add_generation_prompt": c.gen,
				"continue_final_message": c.continue_, "special": special})
		}
		var want []string
		runJS(t, "chattemplate.cjs", map[string]any{"cases": in}, &want)
		if len(want) != len(got) {
			t.Fatalf("%s: %d renderings from the reference, %d cases", tc.file, len(want), len(got))
		}
		for i, c := range chats {
			if got[i] != want[i] {
				t.Errorf("%s: %s:\ngo  %q\njs  %q", tc.file, c.name, got[i], want[i])
			}
			if c.continue_ && !strings.HasSuffix(got[i], "Answer:") {
				t.Errorf("%s: %s: the continued chat ends %q, want the prefill", tc.file, c.name, got[i][max(0, len(got[i])-20):])
			}
		}
		t.Logf("%s (images %v): %d chats equal", tc.file, tc.images, len(chats))
	}
}
