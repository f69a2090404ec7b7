package report

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness/metrics"
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
		parts = append(parts, fmt.Sprintf("%s (%s): %s", r.Role, r.Model, mode))
	}
	return strings.Join(parts, "; ")
}
