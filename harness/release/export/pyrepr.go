package export

import (
	"fmt"
	"strings"
	"unicode"
)

// pyList writes a list of strings as Python's repr writes it (and pandas
// then writes a list column to a TSV): VLMEvalKit reads its candidates
// column back with eval.
func pyList(ss []string) string {
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
