package chattemplate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const chatML = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<img>{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		files  map[string]string
		want   string // the template's source file, "" for none
		errHas string
	}{
		{"none", map[string]string{"tokenizer_config.json": `{"bos_token": "<s>"}`}, "", ""},
		{"no config at all", nil, "", ""},
		{"tokenizer_config string", map[string]string{"tokenizer_config.json": `{"chat_template": "{{ bos_token }}x", "bos_token": {"content": "<s>"}}`}, "tokenizer_config.json", ""},
		{"named list", map[string]string{"tokenizer_config.json": `{"chat_template": [{"name": "tool_use", "template": "t"}, {"name": "default", "template": "{{ bos_token }}x"}], "bos_token": "<s>"}`}, "tokenizer_config.json", ""},
		{"chat_template.json first", map[string]string{"tokenizer_config.json": `{"chat_template": "no", "bos_token": "<s>"}`, "chat_template.json": `{"chat_template": "{{ bos_token }}x"}`}, "chat_template.json", ""},
		{"chat_template.jinja first", map[string]string{"chat_template.json": `{"chat_template": "no"}`, "chat_template.jinja": "{{ bos_token }}x", "tokenizer_config.json": `{"bos_token": "<s>"}`}, "chat_template.jinja", ""},
		{"a number", map[string]string{"tokenizer_config.json": `{"chat_template": 3}`}, "", "tokenizer_config.json: chat_template: want a string"},
		{"a list without default", map[string]string{"tokenizer_config.json": `{"chat_template": [{"name": "rag", "template": "t"}]}`}, "", "without \"default\""},
		{"a bad special token", map[string]string{"tokenizer_config.json": `{"chat_template": "x", "eos_token": 2}`}, "", "tokenizer_config.json: eos_token"},
		{"a bad template", map[string]string{"tokenizer_config.json": `{"chat_template": "{% for %}"}`}, "", "tokenizer_config.json: chat_template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for n, b := range tc.files {
				write(t, dir, n, b)
			}
			tmpl, err := Load(dir)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want one with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if tmpl != nil {
					t.Fatalf("template from %s, want none", tmpl.Source)
				}
				return
			}
			if tmpl == nil || tmpl.Source != filepath.Join(dir, tc.want) {
				t.Fatalf("template %+v, want one from %s", tmpl, tc.want)
			}
			if got, err := tmpl.Render(nil, false); err != nil || got != "<s>x" {
				t.Errorf("rendered %q, %v; want <s>x", got, err)
			}
		})
	}
}

func TestRenderContinue(t *testing.T) {
	t.Parallel()
	tmpl, err := Parse("test", chatML, nil)
	if err != nil {
		t.Fatal(err)
	}
	user := Message{Role: "user", Parts: []Part{{Image: true}, {Image: true}, {Text: "Which? Answer: A or B"}}}
	got, err := tmpl.Render([]Message{user}, true)
	if want := "<|im_start|>user\n<img><img>Which? Answer: A or B<|im_end|>\n<|im_start|>assistant\n"; err != nil || got != want {
		t.Errorf("Render = %q, %v; want %q", got, err, want)
	}
	// The prefill is cut after the last occurrence of its trimmed text:
	// the user's own "Answer:" stays whole, the assistant turn is left
	// open, its leading space kept (as transformers cuts).
	got, err = tmpl.RenderContinue([]Message{user, {Role: "assistant", Content: " Answer: "}})
	if want := "<|im_start|>user\n<img><img>Which? Answer: A or B<|im_end|>\n<|im_start|>assistant\n Answer:"; err != nil || got != want {
		t.Errorf("RenderContinue = %q, %v; want %q", got, err, want)
	}
	if _, err := tmpl.RenderContinue(nil); err == nil {
		t.Error("continuing no messages: no error")
	}
	drop, _ := Parse("drop", "{% for m in messages %}{% if m['role'] == 'user' %}{{ m['content'] }}{% endif %}{% endfor %}", nil)
	if _, err := drop.RenderContinue([]Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "Answer:"}}); err == nil {
		t.Error("a template that drops the final message: no error")
	}
}

func TestFixedDate(t *testing.T) {
	t.Parallel()
	tmpl, err := Parse("date", `{{ strftime_now("%d %b %Y") }}|{{ date_string }}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tmpl.Render(nil, false); err != nil || got != "26 Jul 2024|26 Jul 2024" {
		t.Errorf("%q, %v", got, err)
	}
}
