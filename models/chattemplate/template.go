package chattemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ardanlabs/jinja"
)

// A Template is a compiled chat template with the special tokens its
// tokenizer_config.json names (bos_token, eos_token, ...), which templates
// read as variables.
type Template struct {
	// Source names where the template was read ("DIR/tokenizer_config.json").
	Source string
	// Text is the template itself.
	Text    string
	tmpl    *jinja.Template
	special map[string]string
}

// A Message is one turn of a chat: Content for text, or Parts for text and
// images in order (an image part is rendered as the template places an
// image, {"type": "image"}, as transformers' processors pass one).
type Message struct {
	Role    string
	Content string
	Parts   []Part
}

// A Part is a text (Image false) or an image.
type Part struct {
	Text  string
	Image bool
}

// FixedDate is the date_string every template is given (and what
// strftime_now returns for a date), so that a template that prints today's
// date (Llama 3.2's) renders the same prompt on every day: "26 Jul 2024",
// the date Llama 3.1's template uses when given none. The prompt then
// differs from transformers' on other days by that date alone.
const FixedDate = "26 Jul 2024"

// specialNames are the tokenizer_config.json fields passed to the
// template, as transformers passes its special tokens.
var specialNames = []string{"bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"}

// Parse compiles text; special holds the special tokens' strings by name
// (bos_token: "<s>").
func Parse(source, text string, special map[string]string) (*Template, error) {
	t, err := jinja.Compile(text)
	if err != nil {
		return nil, fmt.Errorf("%s: chat_template: %w", source, err)
	}
	return &Template{Source: source, Text: text, tmpl: t, special: special}, nil
}

// Load reads dir's chat template: chat_template.jinja, else
// chat_template.json's "chat_template", else tokenizer_config.json's
// "chat_template" (a string, or a list of {"name", "template"} whose
// "default" is taken), as transformers looks for them. It returns nil and
// no error when the folder has none. A field of the wrong type is an error
// naming the file and the field.
func Load(dir string) (*Template, error) {
	special, err := readSpecial(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, "chat_template.jinja")); err == nil {
		return Parse(filepath.Join(dir, "chat_template.jinja"), string(b), special)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, name := range []string{"chat_template.json", "tokenizer_config.json"} {
		path := filepath.Join(dir, name)
		text, ok, err := readField(path)
		if err != nil {
			return nil, err
		}
		if ok {
			return Parse(path, text, special)
		}
	}
	return nil, nil
}

// readField returns a JSON file's chat_template; ok is false when the file
// or the field is absent.
func readField(path string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(b, &f); err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	raw, ok := f["chat_template"]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true, nil
	}
	var named []struct {
		Name     *string `json:"name"`
		Template *string `json:"template"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return "", false, fmt.Errorf("%s: chat_template: want a string or a list of {name, template}", path)
	}
	for i, n := range named {
		if n.Name == nil || n.Template == nil {
			return "", false, fmt.Errorf("%s: chat_template[%d]: want name and template strings", path, i)
		}
		if *n.Name == "default" {
			return *n.Template, true, nil
		}
	}
	return "", false, fmt.Errorf("%s: chat_template: a list of named templates without \"default\"", path)
}

// readSpecial reads the special tokens' strings from tokenizer_config.json:
// a string, or an AddedToken object's "content"; null is absent.
func readSpecial(path string) (map[string]string, error) {
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, name := range specialNames {
		raw, ok := f[name]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			out[name] = s
			continue
		}
		var tok struct {
			Content *string `json:"content"`
		}
		if err := json.Unmarshal(raw, &tok); err != nil || tok.Content == nil {
			return nil, fmt.Errorf("%s: %s: want a string or an object with a content string", path, name)
		}
		out[name] = *tok.Content
	}
	return out, nil
}

// Special returns the special token named name ("bos_token") and whether
// the tokenizer config gives one.
func (t *Template) Special(name string) (string, bool) {
	s, ok := t.special[name]
	return s, ok
}

// Render renders msgs; with addGenerationPrompt the template opens the
// assistant's turn.
func (t *Template) Render(msgs []Message, addGenerationPrompt bool) (string, error) {
	data := map[string]jinja.Value{
		"messages":              jinja.FromGoValue(toValues(msgs)),
		"add_generation_prompt": jinja.NewBool(addGenerationPrompt),
		"strftime_now":          jinja.NewCallable("strftime_now", fixedStrftime),
		"date_string":           jinja.NewString(FixedDate),
	}
	for k, v := range t.special {
		data[k] = jinja.NewString(v)
	}
	out, err := t.tmpl.RenderValues(data)
	if err != nil {
		return "", fmt.Errorf("%s: render the chat template: %w", t.Source, err)
	}
	return out, nil
}

// RenderContinue renders msgs, whose last message is the start of the
// assistant's turn, so that the model continues it: transformers'
// continue_final_message (render the whole chat, then cut right after the
// last occurrence of the final message's text, white space at its ends
// trimmed). The template's end-of-turn after it is cut off.
func (t *Template) RenderContinue(msgs []Message) (string, error) {
	if len(msgs) == 0 {
		return "", errors.New("chat template: continue a chat with no messages")
	}
	out, err := t.Render(msgs, false)
	if err != nil {
		return "", err
	}
	last := msgs[len(msgs)-1]
	final := last.Content
	if len(last.Parts) > 0 {
		final = ""
		for i := len(last.Parts) - 1; i >= 0; i-- {
			if !last.Parts[i].Image {
				final = last.Parts[i].Text
				break
			}
		}
	}
	final = strings.TrimSpace(final)
	i := strings.LastIndex(out, final)
	if final == "" || i < 0 {
		return "", fmt.Errorf("%s: the final message %q does not appear in the rendered chat", t.Source, final)
	}
	return out[:i+len(final)], nil
}

// toValues writes msgs as the chat template reads them: content a string,
// or a list of {"type": "text", "text"} and {"type": "image"} parts.
func toValues(msgs []Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		if len(m.Parts) == 0 {
			out[i] = map[string]any{"role": m.Role, "content": m.Content}
			continue
		}
		parts := make([]any, len(m.Parts))
		for j, p := range m.Parts {
			if p.Image {
				parts[j] = map[string]any{"type": "image"}
			} else {
				parts[j] = map[string]any{"type": "text", "text": p.Text}
			}
		}
		out[i] = map[string]any{"role": m.Role, "content": parts}
	}
	return out
}

// fixedStrftime is strftime_now at FixedDate, noon: the directives Python's
// strftime knows for dates and times, each written as Python writes it.
func fixedStrftime(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	format := "%Y-%m-%d"
	if len(args) > 0 {
		if !args[0].IsString() {
			return jinja.Undefined(), fmt.Errorf("strftime_now: the format is %s, not a string", args[0])
		}
		format = args[0].AsString()
	}
	return jinja.NewString(strings.NewReplacer(
		"%d", "26", "%b", "Jul", "%B", "July", "%m", "07", "%Y", "2024", "%y", "24",
		"%H", "12", "%M", "00", "%S", "00", "%a", "Fri", "%A", "Friday", "%%", "%",
	).Replace(format)), nil
}
