package report

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/models/letters"
)

// servedList says how each served reader's answers were read, for a
// card's line: "lm_reader (Qwen/Qwen3-8B): logprobs, prefilled; vlm_reader
// (...): generate, without the prefilled turn" ("" when none was served).
// A margin from log-probabilities and one from a parsed reply (one-hot)
// are not the same measure, so the card names the mode beside the figures.
func servedList(rs []metrics.ServedReader) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		mode := r.Mode
		if mode == "" {
			mode = "not asked"
		} else if r.Prefill {
			mode += ", prefilled"
		} else {
			mode += ", without the prefilled turn"
		}
		if r.ChatTemplateKwargs != "" {
			mode += ", chat_template_kwargs " + r.ChatTemplateKwargs
		}
		parts = append(parts, fmt.Sprintf("%s (%s): %s", r.Role, r.Model, mode))
	}
	return strings.Join(parts, "; ")
}

// splitFailures parts a card's failures into its videos' (by reason) and
// the count of items a served reader's server failed on
// (letters.FailureServer): their videos were read, and what a reader says
// of them is "asked, not answered", not "no video".
func splitFailures(f map[string]int) (videos map[string]int, server int) {
	videos = make(map[string]int, len(f))
	for r, n := range f {
		if r == letters.FailureServer {
			server += n
			continue
		}
		videos[r] = n
	}
	return videos, server
}
