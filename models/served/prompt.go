package served

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/models/letters"
)

// maxOptions is the most options a served query carries (letters A to P,
// harness/answer's 16).
const maxOptions = 16

// partsOf returns what a served reader asks for prompt: its parts, which
// the query words (openai.Query). A prompt without parts (raw text) or one
// the authors' form cannot ask is a caller's error (errPrompt): the served
// path never guesses what it was asked.
func partsOf(p letters.Parts, n int) (letters.Parts, error) {
	if p.Kind == "" {
		return p, fmt.Errorf("%w: a served reader takes a prompt's parts (letters.New), not raw text", errPrompt)
	}
	if len(p.Options) != n {
		return p, fmt.Errorf("%w: %d options in the prompt, %d expected", errPrompt, len(p.Options), n)
	}
	// What the authors' form cannot ask (openai.Query): the reader guesses
	// on such an item, as an ONNX reader does on a prompt too long for it.
	if n < 2 || n > maxOptions {
		return p, fmt.Errorf("%w: %d options; a served reader asks 2 to %d", errPrompt, n, maxOptions)
	}
	for j, o := range p.Options {
		if strings.TrimSpace(o) == "" {
			return p, fmt.Errorf("%w: option %c is empty", errPrompt, 'A'+j)
		}
	}
	return p, nil
}
