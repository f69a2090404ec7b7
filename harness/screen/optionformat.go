package screen

import (
	"regexp"
	"strings"
	"unicode"
)

// metaPattern matches an option that speaks about the other options or
// about what the answerer can know, as the funnel's option-format step
// reads it (Video-Index 5.1; the authors' pool/dedup.py lists the same
// families): "all/none/both/neither/any/either of the above (these, them,
// the options, the choices)", "both A and B", "A and B (are correct)",
// "A, B and C", "cannot be determined ...", "not enough (sufficient)
// information ...", "insufficient information ...", "not mentioned ...",
// "not shown in the video ...", and the bare "none", "all", "other",
// "others". An option's own letter prefix ("C. ", "(c) ") and a final "."
// or ")" are allowed around it; the match is case-insensitive and covers
// the whole option, so "all the dogs run" is no meta option.
//
// harness.MetaOption, the data-quality flag the cards count, knows a list
// of exact phrases; the funnel removes an item for either, so that the
// step removes at least what the authors' removes.
var metaPattern = func() *regexp.Regexp {
	const l = `[a-p]`
	quantifier := `(?:all|none|both|neither|any|either)\s+of\s+(?:the\s+)?(?:above|these|them|the\s+options|the\s+choices)`
	alts := []string{
		quantifier,
		`all\s+(?:of\s+)?the\s+above`,
		`none\s+of\s+the\s+above`,
		`both\s+` + l + `\s+and\s+` + l,
		l + `\s+and\s+` + l + `(?:\s+are\s+correct)?`,
		l + `\s*(?:,|&|and)\s*` + l + `\s*(?:,|&|and)\s*` + l,
		`(?:cannot|can\s*not|can't)\s+be\s+determined\b.*`,
		`not\s+(?:enough|sufficient)\s+information\b.*`,
		`insufficient\s+information\b.*`,
		`not\s+mentioned\b.*`,
		`not\s+shown\s+in\s+the\s+video\b.*`,
		`none`, `all`, `other`, `others`,
	}
	return regexp.MustCompile(`(?is)^\s*(?:\(?` + l + `[.)]\s*)?(?:` + strings.Join(alts, "|") + `)\s*[.)]?\s*$`)
}()

// isMetaOption reports whether option o is a meta option (metaPattern).
func isMetaOption(o string) bool { return metaPattern.MatchString(o) }

// optionText is an option as the repeated-text and empty-gold checks
// compare it: without its own letter prefix ("B. ", "(b) ", "[B] ",
// "b: "), in lower case, with runs of spaces made one.
func optionText(o string) string {
	s := strings.TrimSpace(o)
	rest := s
	if strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "[") {
		rest = rest[1:]
	}
	if len(rest) >= 2 && isLetterAP(rune(rest[0])) && strings.ContainsRune(").]:", rune(rest[1])) {
		s = rest[2:]
	}
	return strings.ToLower(strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " "))
}

func isLetterAP(r rune) bool { r = unicode.ToLower(r); return r >= 'a' && r <= 'p' }

// formatProblem reports whether options (gold at answer) fail the
// option-format step by their text alone: a meta option, two options of
// the same text, or a gold option with no text once its letter is taken
// off.
func formatProblem(options []string, answer int32) bool {
	seen := make(map[string]bool, len(options))
	for _, o := range options {
		if isMetaOption(o) {
			return true
		}
		t := optionText(o)
		if seen[t] {
			return true
		}
		seen[t] = true
	}
	return answer >= 0 && int(answer) < len(options) && optionText(options[answer]) == ""
}
