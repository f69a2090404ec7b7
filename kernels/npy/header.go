// Package npy reads and writes embedding matrices in numpy's .npy format
// (format versions 1.0 to 3.0), so numpy, pandas and friends open the
// embeddings the kernels use. Matrices are float32 in memory; on disk they
// may be float32 ('<f4') or float16 ('<f2'), and float64 ('<f8') is read
// and narrowed. Format: numpy/lib/format.py, "NEP 1".
package npy

import (
	"fmt"
	"strconv"
	"strings"
)

// magic opens every .npy file.
const magic = "\x93NUMPY"

// Header is the dictionary at the start of a .npy file.
type Header struct {
	Descr        string // dtype, e.g. "<f4"
	FortranOrder bool   // column-major data
	Shape        []int
}

// A FormatError reports a malformed or unsupported file.
type FormatError struct {
	Field string // the header field or part of the file at fault
	Msg   string
}

func (e *FormatError) Error() string { return fmt.Sprintf("npy %s: %s", e.Field, e.Msg) }

// parseHeader parses the Python dict literal of a header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
func parseHeader(s string) (Header, error) {
	var h Header
	p := &dictParser{s: strings.TrimSpace(s)}
	if !p.eat("{") {
		return h, &FormatError{"header", fmt.Sprintf("not a dict: %.40q", s)}
	}
	seen := map[string]bool{}
	for {
		if p.eat("}") {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, &FormatError{"header", err.Error()}
		}
		if !p.eat(":") {
			return h, &FormatError{"header", fmt.Sprintf("no ':' after key %q", key)}
		}
		switch key {
		case "descr":
			if h.Descr, err = p.str(); err != nil {
				return h, &FormatError{"descr", err.Error()}
			}
		case "fortran_order":
			switch {
			case p.eat("True"):
				h.FortranOrder = true
			case p.eat("False"):
			default:
				return h, &FormatError{"fortran_order", "not True or False"}
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return h, &FormatError{"shape", err.Error()}
			}
		default:
			return h, &FormatError{"header", fmt.Sprintf("unknown key %q", key)}
		}
		seen[key] = true
		if !p.eat(",") {
			if !p.eat("}") {
				return h, &FormatError{"header", fmt.Sprintf("expected ',' or '}' after %q", key)}
			}
			break
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, &FormatError{k, "missing from header"}
		}
	}
	return h, nil
}

type dictParser struct{ s string }

func (p *dictParser) eat(tok string) bool {
	p.s = strings.TrimLeft(p.s, " \t\n")
	if strings.HasPrefix(p.s, tok) {
		p.s = p.s[len(tok):]
		return true
	}
	return false
}

func (p *dictParser) str() (string, error) {
	p.s = strings.TrimLeft(p.s, " \t\n")
	if p.s == "" || (p.s[0] != '\'' && p.s[0] != '"') {
		return "", fmt.Errorf("expected a quoted string at %.20q", p.s)
	}
	q := p.s[0]
	end := strings.IndexByte(p.s[1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string")
	}
	v := p.s[1 : 1+end]
	p.s = p.s[2+end:]
	return v, nil
}

func (p *dictParser) tuple() ([]int, error) {
	if !p.eat("(") {
		return nil, fmt.Errorf("expected a tuple at %.20q", p.s)
	}
	dims := []int{}
	for {
		if p.eat(")") {
			return dims, nil
		}
		p.s = strings.TrimLeft(p.s, " \t\n")
		i := 0
		for i < len(p.s) && p.s[i] >= '0' && p.s[i] <= '9' {
			i++
		}
		n, err := strconv.Atoi(p.s[:i])
		if err != nil {
			return nil, fmt.Errorf("bad dimension at %.20q", p.s)
		}
		dims = append(dims, n)
		p.s = p.s[i:]
		// numpy writes an L suffix on Python 2 longs.
		p.eat("L")
		if !p.eat(",") {
			if !p.eat(")") {
				return nil, fmt.Errorf("expected ',' or ')' at %.20q", p.s)
			}
			return dims, nil
		}
	}
}

// formatHeader renders h as numpy does, padded with spaces and a newline so
// the data starts on a 64-byte boundary.
func formatHeader(h Header) []byte {
	shape := make([]string, len(h.Shape))
	for i, d := range h.Shape {
		shape[i] = strconv.Itoa(d)
	}
	tuple := "(" + strings.Join(shape, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	fo := "False"
	if h.FortranOrder {
		fo = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", h.Descr, fo, tuple)
	pre := len(magic) + 2 + 2 // version 1.0: 2-byte header length
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	out := make([]byte, 0, total+pad)
	out = append(out, magic...)
	out = append(out, 1, 0)
	hl := len(dict) + pad + 1
	out = append(out, byte(hl), byte(hl>>8))
	out = append(out, dict...)
	for i := 0; i < pad; i++ {
		out = append(out, ' ')
	}
	return append(out, '\n')
}
