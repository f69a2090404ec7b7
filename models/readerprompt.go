package models

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/models/chattemplate"
	"github.com/vidscreen/vidscreen/models/letters"
)

// Prompting is how an ONNX reader turns an item's prompt (letters.Parts)
// into the text its model reads: the wording (the Video-Index authors', or
// the models folder's prompts.json) gives the user turn, and the folder's
// chat template frames it as a server frames the same chat (a user turn
// with the frames first, then an assistant turn prefilled with the
// wording's Prefill, continued as transformers' continue_final_message
// does), so that a model served and on ONNX reads the same prompt. Without
// a chat template the reader reads the plain rendering (the user text, a
// newline, the prefill) with its tokenizer's special tokens.
type Prompting struct {
	Chat    *chattemplate.Template
	Wording *letters.Wording
}

// LoadPrompting reads a reader's folder's chat template and the models
// folder's wording; without a template it says so on log (nil: not said),
// since the reader then reads a prompt no server would send.
func LoadPrompting(roleDir, modelsDir string, log io.Writer) (Prompting, error) {
	chat, err := chattemplate.Load(roleDir)
	if err != nil {
		return Prompting{}, err
	}
	w, err := letters.LoadWording(modelsDir)
	if err != nil {
		return Prompting{}, err
	}
	if chat == nil && log != nil {
		fmt.Fprintf(log, "vidscreen: %s has no chat template (tokenizer_config.json chat_template, chat_template.json or chat_template.jinja): the reader reads the plain prompt, not the one a server would make\n", roleDir)
	}
	return Prompting{Chat: chat, Wording: w}, nil
}

// loadPrompting is LoadPrompting saying a missing template on the
// runtime's log, once per folder.
func (r *Runtime) loadPrompting(roleDir, modelsDir string) (Prompting, error) {
	p, err := LoadPrompting(roleDir, modelsDir, nil)
	if err == nil && p.Chat == nil {
		if w := r.noteNoTemplate(roleDir); w != nil {
			fmt.Fprintf(w, "vidscreen: %s has no chat template (tokenizer_config.json chat_template, chat_template.json or chat_template.jinja): the reader reads the plain prompt, not the one a server would make\n", roleDir)
		}
	}
	return p, err
}

func (p Prompting) wording() *letters.Wording {
	if p.Wording == nil {
		return letters.Default()
	}
	return p.Wording
}

// Text returns the text a text reader reads for pr and whether the
// tokenizer adds its special tokens to it: a chat template writes its own
// (as vLLM tokenizes a rendered chat without adding them). A prompt
// without parts is its raw Text.
func (p Prompting) Text(pr letters.Prompt) (string, bool, error) {
	if !pr.Structured() {
		return pr.Text, true, nil
	}
	return p.render(pr.Parts, 0)
}

// render writes parts with images frames first.
func (p Prompting) render(parts letters.Parts, images int) (string, bool, error) {
	w := p.wording()
	user, err := w.User(parts)
	if err != nil {
		return "", false, err
	}
	if p.Chat == nil {
		return strings.Repeat(ImagePlaceholder, images) + user + "\n" + w.Prefill, true, nil
	}
	msg := chattemplate.Message{Role: "user", Content: user}
	if images > 0 {
		for range images {
			msg.Parts = append(msg.Parts, chattemplate.Part{Image: true})
		}
		msg.Parts = append(msg.Parts, chattemplate.Part{Text: user})
	}
	text, err := p.Chat.RenderContinue([]chattemplate.Message{msg, {Role: "assistant", Content: w.Prefill}})
	return text, false, err
}

// chatTemplateFiles are the files a reader's chat template may come from
// (chattemplate.Load), which RoleName hashes into a reader's name.
var chatTemplateFiles = []string{"chat_template.jinja", "chat_template.json", "tokenizer_config.json"}

// roleDir is the folder of a role's files.
func roleDir(files map[string]string, slot string) string { return filepath.Dir(files[slot]) }
