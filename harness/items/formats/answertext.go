package formats

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness/answer"
)

// answerTextIndex finds the option an answer written as text names (MLVU's
// and STAR's answer fields): the one option equal to it once surrounding
// space is trimmed, else the one equal once case, spacing and
// punctuation are set aside (answer.Normalize). It returns -1 with the reason when no option
// or several fit: the item is then open-ended, not audited.
func answerTextIndex(options []string, gold string) (int, string) {
	if strings.TrimSpace(gold) == "" {
		return -1, "open-ended: the answer is empty"
	}
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
		func(a, b string) bool { return answer.Normalize(a) == answer.Normalize(b) },
	} {
		hit := -1
		for i, o := range options {
			if !eq(o, gold) {
				continue
			}
			if hit >= 0 {
				return -1, fmt.Sprintf("open-ended: the answer %q is the text of options %s and %s", annoClip(gold), answer.Letter(hit), answer.Letter(i))
			}
			hit = i
		}
		if hit >= 0 {
			return hit, ""
		}
	}
	return -1, fmt.Sprintf("open-ended: the answer %q is the text of no option", annoClip(gold))
}

// annoClip shortens a text for a message.
func annoClip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
