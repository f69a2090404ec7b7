package served

import (
	"fmt"
	"strings"
)

// A reader's prompt as the harness writes it (attack's letterPrompt,
// features' vlmPrompt): context lines (captions), "Question: ...",
// "Options:", one "A. ..." a line, then the harness's instruction and the
// answer cue. The served readers put the same question to the server in the
// authors' form (openai.Query), so the prompt is read back into its parts.
const (
	harnessInstruction = "Answer with the option's letter."
	answerCue          = "Answer:"
	questionPrefix     = "Question: "
	optionsHeader      = "Options:\n"
)

// maxOptions is the most options a served query carries (letters A to P,
// harness/answer's 16).
const maxOptions = 16

// promptParts are a reader's prompt read back.
type promptParts struct {
	context, question string
	options           []string
}

// parsePrompt reads a harness prompt of n options. Text that is not one is
// a caller's error (errPrompt): the served path must never guess what it
// was asked.
func parsePrompt(text string, n int) (promptParts, error) {
	var p promptParts
	body := strings.TrimRight(text, " \n")
	body = strings.TrimSuffix(body, answerCue)
	body = strings.TrimRight(body, " \n")
	body = strings.TrimSuffix(body, harnessInstruction)
	i := strings.LastIndex(body, optionsHeader)
	if i < 0 {
		return p, fmt.Errorf("%w: no %q line in the prompt", errPrompt, strings.TrimSpace(optionsHeader))
	}
	head, opts := body[:i], body[i+len(optionsHeader):]
	for _, line := range strings.Split(strings.TrimRight(opts, "\n"), "\n") {
		k := len(p.options)
		if k < n && strings.HasPrefix(line, fmt.Sprintf("%c. ", 'A'+k)) {
			p.options = append(p.options, line[3:])
			continue
		}
		if k == 0 {
			return p, fmt.Errorf("%w: option line %q does not start with A.", errPrompt, line)
		}
		p.options[k-1] += "\n" + line // an option's text running over lines
	}
	if len(p.options) != n {
		return p, fmt.Errorf("%w: %d options in the prompt, %d expected", errPrompt, len(p.options), n)
	}
	// What the authors' form cannot ask (openai.Query): the reader guesses
	// on such an item, as an ONNX reader does on a prompt too long for it.
	if n < 2 || n > maxOptions {
		return p, fmt.Errorf("%w: %d options; a served reader asks 2 to %d", errPrompt, n, maxOptions)
	}
	for j, o := range p.options {
		if strings.TrimSpace(o) == "" {
			return p, fmt.Errorf("%w: option %c is empty", errPrompt, 'A'+j)
		}
	}
	if j := strings.LastIndex(head, questionPrefix); j >= 0 && (j == 0 || head[j-1] == '\n') {
		p.question = strings.TrimSpace(head[j+len(questionPrefix):])
		head = head[:j]
	}
	p.context = strings.TrimSpace(head)
	return p, nil
}

// given is the one line that tells the reader what it is given (the
// authors' form states it before the question): frames (images), captions
// (the context of a text reader), the question, or the options alone.
func given(p promptParts, images int) string {
	switch {
	case images == 1:
		return "You are given one frame of a video."
	case images > 1:
		return fmt.Sprintf("You are given %d frames of a video.", images)
	case p.context != "":
		return "You are given descriptions of frames of a video, not the video itself:\n" + p.context
	case p.question == "":
		return "You are given only the answer options, not the question or the video."
	}
	return "You are given the question and the answer options, not the video."
}
