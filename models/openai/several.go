package openai

import (
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/models/letters"
)

// severalLetters finds two option letters joined as alternatives or a list:
// "B or C", "(B) or (C)", "C, D", "B and C", "B/C", "B & C". Each letter
// stands alone (not the start of a word), so "A man and a dog" is not a
// pair.
var severalLetters = regexp.MustCompile(`(?:^|[^A-Za-z])[(\[]?([A-P])[)\].]?\s*(?:,|/|&|\bor\b|\band\b)\s*[(\[]?([A-P])(?:[^A-Za-z]|$)`)

// namesSeveral reports whether a generated reply names two different
// option letters among the n shown as its answer ("B or C", "C, D"): such
// a reply hedges, and read as its first letter it would count as a
// confident answer (a one-hot score, the full margin). The reader abstains
// on it instead. A prefilled "Answer:" repeated at the start is skipped.
func namesSeveral(reply string, n int) bool {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reply), letters.DefaultPrefill))
	for _, m := range severalLetters.FindAllStringSubmatch(s, -1) {
		a, b := int(m[1][0]-'A'), int(m[2][0]-'A')
		if a != b && a < n && b < n {
			return true
		}
	}
	return false
}
