package release

import (
	"regexp"
	"strings"
	"unicode"
)

// Question templates are the unit of the per-template cap: Video-Index's
// pool/scenes.py, template_regex, the rule its selection falls back to
// without spaCy, applied per source (the cap counts (benchmark, template)
// pairs). vidscreen takes the fallback because it runs no tagger; the
// authors call it coarser (it replaces numbers and quoted strings only), so
// two questions that differ in a noun are two templates here.
var (
	// templateQuoted is the authors' _QUOTED: a double- or single-quoted
	// run. An apostrophe counts as a quote, as theirs ("the man's hat's"
	// holds the quoted run "'s hat'").
	templateQuoted = regexp.MustCompile(`"[^"]+"|'[^']+'`)
	// templateNumber is the authors' _NUM, \d+(?:[\.,:]\d+)*; Python's \d
	// on a str is any decimal digit (Unicode Nd), so this is \p{Nd}.
	templateNumber = regexp.MustCompile(`\p{Nd}+(?:[.,:]\p{Nd}+)*`)
)

// templateMaxRunes is how much of a question the authors template (their
// str(question)[:800]: code points).
const templateMaxRunes = 800

// QuestionTemplate is the template of a question by the authors' rule:
// the first 800 characters, quoted runs replaced by <ENT> and numbers
// (1, 3.5, 1,000, 1:30) by <NUM>, split on white space, every other token
// lower-cased, and a run of one repeated placeholder (a token starting
// with "<") collapsed to one. "How many times does he jump in clip 12?"
// is "how many times does he jump in clip <NUM> ?".
func QuestionTemplate(question string) string {
	if n := 0; len(question) > templateMaxRunes {
		for i := range question {
			if n == templateMaxRunes {
				question = question[:i]
				break
			}
			n++
		}
	}
	q := templateQuoted.ReplaceAllLiteralString(question, " <ENT> ")
	q = templateNumber.ReplaceAllLiteralString(q, " <NUM> ")
	var out []string
	for _, t := range strings.FieldsFunc(q, pythonSpace) {
		if t != "<NUM>" && t != "<ENT>" {
			t = strings.ToLower(t)
		}
		if len(out) == 0 || out[len(out)-1] != t || !strings.HasPrefix(t, "<") {
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// pythonSpace is the white space Python's str.split() splits on: Go's
// unicode.IsSpace and the four separators U+001C-U+001F.
func pythonSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }
