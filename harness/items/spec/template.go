package spec

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// A template gives a value of a record: one field (by name or nested
// path), or text with {field|converter|...} parts.
type template struct {
	// field is set for a bare field reference, whose value is returned
	// as it is (a list stays a list).
	field string
	parts []part
}

type part struct {
	text  string   // literal text, when field is ""
	field string   // the field of a {field|conv} part
	convs []string // its converters, in order
}

// converters are the converters a template part may name; strip takes an
// argument (strip:<prefix>).
var converters = map[string]bool{
	"int": true, "sec": true, "str": true, "basename": true, "stem": true, "first": true,
	"dir0": true, "lower": true, "letter0": true, "letter1": true,
}

// compile parses t; an empty t gives nil (no such field).
func compile(t string) (*template, error) {
	if t == "" {
		return nil, nil
	}
	if !strings.ContainsAny(t, "{}") {
		return &template{field: t}, nil
	}
	var tp template
	for rest := t; rest != ""; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			if strings.Contains(rest, "}") {
				return nil, fmt.Errorf("%q: a } without its {", t)
			}
			tp.parts = append(tp.parts, part{text: rest})
			break
		}
		if i > 0 {
			if strings.Contains(rest[:i], "}") {
				return nil, fmt.Errorf("%q: a } without its {", t)
			}
			tp.parts = append(tp.parts, part{text: rest[:i]})
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("%q: a { without its }", t)
		}
		body := rest[i+1 : i+j]
		names := strings.Split(body, "|")
		p := part{field: strings.TrimSpace(names[0])}
		if p.field == "" {
			return nil, fmt.Errorf("%q: {} names no field", t)
		}
		for _, c := range names[1:] {
			c = strings.TrimSpace(c)
			if !converters[c] && !strings.HasPrefix(c, "strip:") {
				return nil, fmt.Errorf("%q: unknown converter %q (want int, sec, str, basename, stem, first, strip:<prefix>, dir0, lower, letter0 or letter1)", t, c)
			}
			p.convs = append(p.convs, c)
		}
		tp.parts = append(tp.parts, p)
		rest = rest[i+j+1:]
	}
	return &tp, nil
}

// eval gives the template's value in rec: the field's own value for a bare
// field, else the text. ok is false when a field it names is absent (or
// null): the record has no such value.
func (t *template) eval(rec map[string]any) (v any, ok bool, err error) {
	if t == nil {
		return nil, false, nil
	}
	if t.field != "" {
		v, ok := lookup(rec, t.field)
		return v, ok, nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.field == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := lookup(rec, p.field)
		if !ok {
			return nil, false, nil
		}
		for _, c := range p.convs {
			if v, err = convert(c, v); err != nil {
				return nil, false, fmt.Errorf("{%s|%s}: %v", p.field, c, err)
			}
		}
		s, _ := scalarText(v)
		b.WriteString(s)
	}
	return b.String(), true, nil
}

// lookup finds name in rec: the key itself, else a dotted path into nested
// objects (and list indexes: "choices.0").
func lookup(rec map[string]any, name string) (any, bool) {
	if v, ok := rec[name]; ok {
		return v, v != nil
	}
	var cur any = rec
	for _, k := range strings.Split(name, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[k]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, cur != nil
}

// convert applies one converter.
func convert(c string, v any) (any, error) {
	if p, ok := strings.CutPrefix(c, "strip:"); ok {
		s, _ := scalarText(v)
		return strings.TrimPrefix(s, p), nil
	}
	switch c {
	case "first":
		if l, ok := v.([]any); ok {
			if len(l) == 0 {
				return nil, fmt.Errorf("an empty list")
			}
			return l[0], nil
		}
		return v, nil
	case "str":
		s, _ := scalarText(v)
		return s, nil
	case "int":
		f, err := number(v)
		if err != nil {
			return nil, err
		}
		return strconv.FormatInt(int64(math.Round(f)), 10), nil
	case "sec":
		f, err := seconds(v)
		if err != nil {
			return nil, err
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case "letter0", "letter1":
		f, err := number(v)
		if err != nil {
			return nil, err
		}
		i := int(f)
		if c == "letter1" {
			i--
		}
		if float64(int(f)) != f || i < 0 || i >= 26 {
			return nil, fmt.Errorf("%v is no option index", v)
		}
		return string(rune('A' + i)), nil
	}
	s, _ := scalarText(v)
	switch c {
	case "basename":
		return path.Base(strings.ReplaceAll(s, `\`, "/")), nil
	case "stem":
		b := path.Base(strings.ReplaceAll(s, `\`, "/"))
		return strings.TrimSuffix(b, path.Ext(b)), nil
	case "dir0":
		first, _, _ := strings.Cut(strings.TrimPrefix(strings.ReplaceAll(s, `\`, "/"), "/"), "/")
		return first, nil
	case "lower":
		return strings.ToLower(s), nil
	}
	return nil, fmt.Errorf("unknown converter %q", c)
}

// scalarText is v as text: strings as they are, numbers without a
// trailing ".0" (JSON reads every number as float64), bools as true/false.
// ok is false for a list or object.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatInt(int64(f), 10), true
		}
		return string(x), true
	case []byte:
		return string(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), true
		}
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case float32:
		return scalarText(float64(x))
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return fmt.Sprint(v), false
}

// number reads v as a number: a JSON number or a numeric string.
func number(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return x.Float64()
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case float32:
		return float64(x), nil
	}
	s, _ := scalarText(v)
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

// seconds reads a time: a number of seconds, or [[h:]m:]s text
// ("01:02:03.5").
func seconds(v any) (float64, error) {
	if f, err := number(v); err == nil {
		return f, nil
	}
	s, _ := scalarText(v)
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) > 3 {
		return 0, fmt.Errorf("%q is not a time", s)
	}
	total := 0.0
	for _, p := range parts {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("%q is not a time ([[h:]m:]s or seconds)", s)
		}
		total = total*60 + f
	}
	return total, nil
}

// sortedKeys lists m's keys in the order records are numbered: numeric
// keys by value ("2" before "10"), then the others by text.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

func compareKeys(a, b string) int {
	na, ea := strconv.ParseFloat(a, 64)
	nb, eb := strconv.ParseFloat(b, 64)
	switch {
	case ea == nil && eb == nil && na != nb:
		return cmp.Compare(na, nb)
	case ea == nil && eb != nil:
		return -1
	case ea != nil && eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}
