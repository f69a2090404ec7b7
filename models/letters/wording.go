package letters

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A Wording is how the readers put an item into words: one template per
// Kind, with the placeholders {n} (frames or captions), {question},
// {options} (the lettered options, "A. text" a line), {context} and
// {captions} ("Frame 1: caption" a line), and the assistant turn the
// answer letter follows (Prefill). The default is the Video-Index
// authors'; a prompt file in the models folder (PromptFile) overrides it,
// and ID names which one a run used.
type Wording struct {
	templates map[Kind]string
	// Prefill is the start of the assistant turn the letter follows.
	Prefill string
	// ID names the wording: DefaultID, or "sha256:" and the prompt file's
	// hash.
	ID string
}

// PromptFile is the name of the prompt file in a models folder.
const PromptFile = "prompts.json"

// DefaultID names the default wording; change it when its text changes.
const DefaultID = "video-index-prompts/1"

// The authors' answer instruction and intros (video_index/pool/screen.py's
// INTRO_* and PROMPT, audit/prompts.py's READ_VIDEO_CAPTION and
// READ_FRAME_CAPTIONS), written out as templates.
const (
	answerLine = "Answer with the option letter only."
	qAndOpts   = "Question: {question}\nOptions:\n{options}\n" + answerLine
)

var defaultTemplates = map[Kind]string{
	KindOptionsOnly: "You are given NO frames from the video and NO question text. Using only the answer options below, choose the option most likely to be correct.\n\nOptions:\n{options}\n" + answerLine,
	KindBlind:       "You are given NO frames from the video. Answer the question from the text alone.\n\n" + qAndOpts,
	KindVisual:      "You are given {n} frame(s) sampled from a video. Answer the question based on these frames.\n\n" + qAndOpts,
	KindFrameCaptions: "You are given short captions of {n} frames sampled from a video, one caption per frame, in frame order. " +
		"You cannot see the video. Answer the question from these captions.\n\nFrame captions:\n{captions}\n\n" + qAndOpts,
	KindVideoCaption: "You are given a text description of a video INSTEAD of the video itself. Answer the question based on the description.\n\n" +
		"Video description: {context}\n\n" + qAndOpts,
	// The authors have no transcript or retrieval reader; these follow
	// their form.
	KindTranscript: "You are given the transcript of the audio of a video INSTEAD of the video itself. Answer the question based on the transcript.\n\n" +
		"Transcript: {context}\n\n" + qAndOpts,
	KindExamples: "You are given NO frames from the video. You are given answered questions about other videos, nearest first. Answer the last question.\n\n" +
		"{context}\n\n" + qAndOpts,
}

// DefaultPrefill is the authors' assistant prefill (pool/logprobs.py).
const DefaultPrefill = "Answer:"

// Default returns the authors' wording.
func Default() *Wording {
	return &Wording{templates: defaultTemplates, Prefill: DefaultPrefill, ID: DefaultID}
}

// Tag is what a reader's name gains from the wording: nothing for the
// default, ":prompts=" and the prompt file's hash otherwise, so that
// answers cached under one wording are not reused under another.
func (w *Wording) Tag() string {
	if w == nil || w.ID == DefaultID {
		return ""
	}
	return ":prompts=" + w.ID
}

// Template returns the template of kind k.
func (w *Wording) Template(k Kind) (string, bool) {
	t, ok := w.templates[k]
	return t, ok
}

// User returns the text of the user turn for p.
func (w *Wording) User(p Parts) (string, error) {
	t, ok := w.templates[p.Kind]
	if !ok {
		return "", fmt.Errorf("prompt: no wording for kind %q", p.Kind)
	}
	n := p.Frames
	if p.Kind == KindFrameCaptions {
		n = len(p.Captions)
	}
	var caps strings.Builder
	for i, c := range p.Captions {
		if i > 0 {
			caps.WriteByte('\n')
		}
		fmt.Fprintf(&caps, "Frame %d: %s", i+1, strings.TrimSpace(c))
	}
	// One pass: a question holding "{options}" is not expanded again.
	return strings.NewReplacer(
		"{n}", strconv.Itoa(n),
		"{question}", strings.TrimSpace(p.Question),
		"{options}", RenderOptions(p.Options),
		"{context}", strings.TrimSpace(p.Context),
		"{captions}", caps.String(),
	).Replace(t), nil
}

// Plain is the prompt a model without a chat template reads: the user
// text, a newline, the prefill. A kind the wording lacks renders as an
// empty user text (New is called with the harness's own kinds).
func (w *Wording) Plain(p Parts) string {
	u, _ := w.User(p)
	return u + "\n" + w.Prefill
}

// RenderOptions letters the options in order, "A. text" a line
// (video_index/pool/schema.py's render_options).
func RenderOptions(opts []string) string {
	var b strings.Builder
	for j, o := range opts {
		if j > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s. %s", LetterName(j), strings.TrimSpace(o))
	}
	return b.String()
}

// LetterName is the letter of option j (A for 0).
func LetterName(j int) string { return string(rune('A' + j)) }

var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

var allowed = map[string]bool{"{n}": true, "{question}": true, "{options}": true, "{context}": true, "{captions}": true}

// LoadWording reads dir's prompt file; without one it is Default. The file
// is a JSON object: "prefill" and one template per kind, each optional (a
// kind not given keeps the default's); an unknown key, a value that is not
// a string, an unknown placeholder or a template without {options} is an
// error naming the file and the key.
func LoadWording(dir string) (*Wording, error) {
	path := filepath.Join(dir, PromptFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return nil, err
	}
	return ParseWording(path, b)
}

// ParseWording reads a prompt file's bytes; path names it in errors.
func ParseWording(path string, b []byte) (*Wording, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s: want a JSON object", path)
	}
	w := Default()
	w.templates = make(map[Kind]string, len(defaultTemplates))
	for k, t := range defaultTemplates {
		w.templates[k] = t
	}
	known := map[string]bool{"prefill": true}
	for _, k := range Kinds {
		known[string(k)] = true
	}
	for key, v := range raw {
		if !known[key] {
			return nil, fmt.Errorf("%s: unknown key %q (want prefill or one of %v)", path, key, Kinds)
		}
		var s *string
		if err := json.Unmarshal(v, &s); err != nil || s == nil {
			return nil, fmt.Errorf("%s: %s: want a string, got %s", path, key, v)
		}
		if key == "prefill" {
			w.Prefill = *s
			continue
		}
		for _, ph := range placeholder.FindAllString(*s, -1) {
			if !allowed[ph] {
				return nil, fmt.Errorf("%s: %s: unknown placeholder %s (want {n}, {question}, {options}, {context} or {captions})", path, key, ph)
			}
		}
		if !strings.Contains(*s, "{options}") {
			return nil, fmt.Errorf("%s: %s: the template has no {options}", path, key)
		}
		w.templates[Kind(key)] = *s
	}
	sum := sha256.Sum256(b)
	w.ID = "sha256:" + hex.EncodeToString(sum[:])
	return w, nil
}
