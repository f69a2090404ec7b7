package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// pyList writes a list of strings as Python's repr writes it (and pandas
// then writes a list column to a TSV): VLMEvalKit reads its candidates
// column back with eval. A list whose repr would need \r, \x, \u or \U
// escapes is written as JSON instead, which is as valid a Python literal
// (eval gives the same strings) and which every reader of such tables,
// vidscreen import among them, reads exactly.
func pyList(ss []string) string {
	for _, s := range ss {
		if needsEscape(s) {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(ss) // a []string always encodes
			return strings.TrimSuffix(b.String(), "\n")
		}
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyString(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyString is Python's repr of a str: single quotes unless the text holds
// a single quote and no double quote, the quote and the backslash escaped,
// \t \n \r, and \x, \u or \U escapes for what Python does not print.
func pyString(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}

// needsEscape reports whether Python's repr of s writes an escape other
// than \\, \', \" , \t and \n.
func needsEscape(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}
