package harness

import (
	"strings"
	"unicode"
)

// Quality holds the data-quality flags of an item: quirks of real
// benchmarks that are data, not errors (docs/audit.md, Items). An item with any
// of them is accepted and audited as it is; cards count the flags,
// items.parquet carries them, and screening can use them.
type Quality uint8

const (
	// EmptyOption: some option text is empty or blank (a long-video
	// benchmark pads its two-option items to four with "").
	EmptyOption Quality = 1 << iota
	// RepeatedOption: two options have the same text once case, spacing and
	// punctuation are set aside.
	RepeatedOption
	// LetterPrefix: options carry their own letters ("A. a dog", "(B) a
	// cat").
	LetterPrefix
	// MetaOption: an option speaks about the others or about the answerer
	// ("all of the above", "none of the above", "I don't know").
	MetaOption
)

var qualityNames = []struct {
	q    Quality
	name string
}{
	{EmptyOption, "empty_option"},
	{RepeatedOption, "repeated_option"},
	{LetterPrefix, "letter_prefix"},
	{MetaOption, "meta_option"},
}

// QualityNames lists the name of every flag, in bit order: the keys of a
// card's data_quality counts and the suffixes of items.parquet's dq_
// columns.
func QualityNames() []string {
	out := make([]string, len(qualityNames))
	for k, x := range qualityNames {
		out[k] = x.name
	}
	return out
}

// Has reports whether every flag of f is set in q.
func (q Quality) Has(f Quality) bool { return q&f == f }

// Names lists the names of the flags set in q.
func (q Quality) Names() []string {
	var out []string
	for _, x := range qualityNames {
		if q.Has(x.q) {
			out = append(out, x.name)
		}
	}
	return out
}

// Flag returns the flag of the given name (as QualityNames lists it).
func Flag(name string) (Quality, bool) {
	for _, x := range qualityNames {
		if x.name == name {
			return x.q, true
		}
	}
	return 0, false
}

// qualityOf computes the data-quality flags of options.
func qualityOf(options []string) Quality {
	var q Quality
	seen := make(map[string]bool, len(options))
	prefixed := 0
	for j, o := range options {
		norm := normOption(o)
		if norm == "" {
			if strings.TrimSpace(o) == "" {
				q |= EmptyOption
			}
		} else {
			if seen[norm] {
				q |= RepeatedOption
			}
			seen[norm] = true
		}
		if metaOptions[norm] {
			q |= MetaOption
		}
		if hasLetterPrefix(o, j) {
			prefixed++
		}
	}
	// One option that happens to start "A " is a word; most options starting
	// with their own letters is a layout.
	if prefixed >= 2 && 2*prefixed >= len(options) {
		q |= LetterPrefix
	}
	return q
}

// hasLetterPrefix reports whether option j starts with its own letter, a
// separator, a space and then text: "A. ", "A) ", "(A) ", "[A] ", "A: "
// (letters A-P, either case). The space is what tells a prefix from an
// option made of letters: Video-MME's ordering options "(b)(a)(d)(c)."
// start with their own letter and a parenthesis, and are no prefix (the
// rule items.StripLetterPrefixes applies on import).
func hasLetterPrefix(o string, j int) bool {
	s := strings.TrimSpace(o)
	open := byte(0)
	if strings.HasPrefix(s, "(") || strings.HasPrefix(s, "[") {
		open, s = s[0], s[1:]
	}
	if len(s) < 4 || unicode.ToUpper(rune(s[0])) != rune('A'+j) {
		return false
	}
	switch {
	case open == '(' && s[1] != ')', open == '[' && s[1] != ']':
		return false
	case open == 0 && s[1] != '.' && s[1] != ')' && s[1] != ':':
		return false
	}
	rest := s[2:]
	return (rest[0] == ' ' || rest[0] == '\t') && strings.TrimSpace(rest) != ""
}

// normOption is the form in which option texts are compared: lower case,
// letters and digits only, single spaces.
func normOption(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		if r != '\'' && r != '’' {
			space = true
		}
	}
	return b.String()
}

// metaOptions are the normalised texts of options about the other options or
// about the answerer, as real benchmarks write them.
var metaOptions = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range []string{
		"all of the above", "none of the above", "all the above", "none of these", "all of these",
		"both of the above", "neither of the above", "none", "not sure", "i dont know", "i do not know",
		"dont know", "unknown", "cannot be determined", "cant be determined", "cannot tell", "cant tell",
		"not enough information", "insufficient information", "none of the options", "all of the options",
		"other", "others", "none of them", "all of them",
	} {
		m[s] = true
	}
	return m
}()
