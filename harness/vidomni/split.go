package vidomni

import (
	"strings"
	"unicode"
)

// Split cuts a dense caption into sentences, in order, each trimmed and
// with its runs of white space (line breaks included) made one space.
//
// A sentence ends at '.', '!', '?', '…' or "..." (with any closing quotes
// or brackets that follow) when white space and then a capital letter, a
// digit or an opening quote come next; a blank line, a line that starts a
// list item ("- ", "* ", "• ", "1. ", "2) "; the marker is dropped) and a
// line break after a finished sentence or a colon end one too. So these
// stay whole:
//
//   - abbreviations: "Mr. Lee", "e.g. a cup", "vs. the", "approx. 3 m";
//     those that often end a sentence (etc., Inc., a.m., p.m., et al.)
//     end one only before a capital;
//   - initials and dotted acronyms: "J. R. R. Tolkien", "the U.S. Army";
//   - decimals and numbers: "3.5 m", "$1,200.50", "No. 7";
//   - quotes: `the sign reads "Exit." and he leaves` (lower case goes on),
//     while `he shouts "Stop!" Then he runs.` is two sentences;
//   - ellipses followed by lower case: "he waits... then turns".
//
// A sentence run on without a space ("walks.The man") is cut when a word
// of three or more lower-case letters precedes the stop and a capitalised
// word follows it.
func Split(text string) []string {
	var out []string
	for _, block := range blocks(text) {
		out = appendSentences(out, []rune(block))
	}
	return out
}

// blocks joins the caption's lines into runs that no sentence crosses.
func blocks(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		if rest, ok := cutListMarker(line); ok {
			flush()
			line = rest
		}
		if len(cur) > 0 && endsClause(cur[len(cur)-1]) {
			flush()
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// cutListMarker drops a list item's marker: "- ", "* ", "• ", or a number
// of at most three digits followed by ". " or ") ".
func cutListMarker(line string) (string, bool) {
	for _, m := range []string{"- ", "* ", "• ", "– "} {
		if strings.HasPrefix(line, m) {
			return strings.TrimSpace(line[len(m):]), true
		}
	}
	i := 0
	for i < len(line) && i < 3 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return strings.TrimSpace(line[i+2:]), true
	}
	return line, false
}

// endsClause reports whether a line ends a sentence or a heading, so that
// a line break after it ends a sentence.
func endsClause(line string) bool {
	r := []rune(strings.TrimRightFunc(line, func(r rune) bool { return isCloser(r) || r == '*' }))
	if len(r) == 0 {
		return false
	}
	switch r[len(r)-1] {
	case '.', '!', '?', '…', ':':
		return true
	}
	return false
}

func isTerminal(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»', '*':
		return true
	}
	return false
}

func isOpener(r rune) bool {
	switch r {
	case '"', '\'', '(', '[', '“', '‘', '«', '*':
		return true
	}
	return false
}

// Abbreviations, lower case without their last period. neverFinal ones
// never end a sentence; mayEnd ones end one before a capital.
var (
	neverFinal = map[string]bool{
		"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
		"vs": true, "e.g": true, "i.e": true, "approx": true, "fig": true, "figs": true, "mt": true,
		"gen": true, "capt": true, "lt": true, "col": true, "sgt": true, "rev": true, "hon": true,
		"pres": true, "gov": true, "sen": true, "rep": true, "ca": true, "cf": true, "viz": true,
		"no": true, "nos": true, "vol": true, "pp": true, "ft": true,
	}
	mayEnd = map[string]bool{"etc": true, "inc": true, "ltd": true, "co": true, "corp": true, "al": true, "a.m": true, "p.m": true}
)

// appendSentences scans one block and appends its sentences.
func appendSentences(out []string, r []rune) []string {
	start := 0
	emit := func(end int) {
		s := strings.Join(strings.Fields(string(r[start:end])), " ")
		if s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(r); i++ {
		if !isTerminal(r[i]) {
			continue
		}
		// The run of stops: "?!", "...", "…".
		j := i
		for j+1 < len(r) && isTerminal(r[j+1]) {
			j++
		}
		stops := string(r[i : j+1])
		k := j + 1
		for k < len(r) && isCloser(r[k]) {
			k++
		}
		if k < len(r) && !unicode.IsSpace(r[k]) {
			// No space after the stop: a decimal, a domain, "U.S.A", or
			// a sentence run on ("walks.The man").
			if k == j+1 && stops != "..." && runOn(r, i, k) {
				emit(k)
			}
			i = j
			continue
		}
		next := k
		for next < len(r) && unicode.IsSpace(r[next]) {
			next++
		}
		if next == len(r) {
			break // the block's end ends the sentence
		}
		if !startsSentence(r[next:]) {
			i = j
			continue
		}
		if stops == "." && !periodEnds(r, i, r[next:]) {
			i = j
			continue
		}
		emit(k)
		i = k - 1
	}
	emit(len(r))
	return out
}

// startsSentence reports whether text can begin a sentence: a capital, a
// digit, or an opening quote or bracket before one.
func startsSentence(text []rune) bool {
	for _, c := range text {
		if isOpener(c) {
			continue
		}
		return unicode.IsUpper(c) || unicode.IsDigit(c) || unicode.IsTitle(c)
	}
	return false
}

// periodEnds decides a single '.' at r[i] followed by a space and a
// sentence start: abbreviations and initials do not end sentences.
func periodEnds(r []rune, i int, next []rune) bool {
	w := i
	for w > 0 && !unicode.IsSpace(r[w-1]) && !isOpener(r[w-1]) {
		w--
	}
	word := string(r[w:i])
	lower := strings.ToLower(word)
	switch {
	case word == "":
		return true
	case lower == "no" || lower == "nos":
		// "No. 7" is an abbreviation; "said no. Then" is not.
		return !(unicode.IsUpper([]rune(word)[0]) && len(next) > 0 && unicode.IsDigit(next[0]))
	case neverFinal[lower]:
		return false
	case mayEnd[lower]:
		return true // the capital after it was checked by the caller
	}
	letters := []rune(word)
	if len(letters) == 1 && unicode.IsUpper(letters[0]) {
		return false // an initial: "J. Smith"
	}
	if dottedAcronym(word) {
		return false // "U.S. Army"
	}
	return true
}

// dottedAcronym reports "U.S", "D.C", "U.K": single letters between dots.
func dottedAcronym(word string) bool {
	parts := strings.Split(word, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		rs := []rune(p)
		if len(rs) != 1 || !unicode.IsLetter(rs[0]) {
			return false
		}
	}
	return true
}

// runOn reports a sentence run on after the stop at r[i]: at least three
// lower-case letters before it and a capital then a lower-case letter
// after (r[k] is the first rune after the stop).
func runOn(r []rune, i, k int) bool {
	if i < 3 || k+1 >= len(r) {
		return false
	}
	for _, c := range r[i-3 : i] {
		if !unicode.IsLower(c) {
			return false
		}
	}
	return unicode.IsUpper(r[k]) && unicode.IsLower(r[k+1])
}
