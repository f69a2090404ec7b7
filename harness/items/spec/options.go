package spec

import (
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// options reads a record's options: the options field (a list, a dict in
// key order, or a string holding a list) or one field per option. An empty
// option keeps its place (it is data: flagged downstream, not the end of
// the list); empty options after the last non-empty one are padding and
// dropped. A per-option field missing before a present one is an error:
// dropping it would move every later option's letter.
func (s *Spec) options(r *record) ([]string, error) {
	f := s.Fields
	if len(f.OptionFields) > 0 {
		opts := make([]string, len(f.OptionFields))
		absent := make([]bool, len(f.OptionFields))
		for i, t := range f.OptionFields {
			tp, _ := compile(t)
			v, ok, err := tp.eval(r.fields)
			if err != nil {
				return nil, r.fail(fieldName("option_fields", t), fmt.Errorf("%w: %v", harness.ErrBadValue, err))
			}
			txt, _ := scalarText(v)
			opts[i], absent[i] = strings.TrimSpace(txt), !ok && !exists(r.fields, tp)
		}
		opts = trimPadding(opts)
		for i := range opts {
			if absent[i] {
				name := fieldName("option_fields", f.OptionFields[i])
				return nil, r.fail(name, fmt.Errorf("%w: option %s is missing but a later option is given: dropping it would move the later options' letters", harness.ErrMissingField, name))
			}
		}
		return opts, nil
	}
	if f.Options == "" {
		return nil, nil
	}
	tp, _ := compile(f.Options)
	v, ok, err := tp.eval(r.fields)
	if err != nil {
		return nil, r.fail(fieldName("options", f.Options), fmt.Errorf("%w: %v", harness.ErrBadValue, err))
	}
	if !ok {
		return nil, nil
	}
	name := fieldName("options", f.Options)
	var opts []string
	switch x := v.(type) {
	case []any:
		for i, o := range x {
			t, scalar := scalarText(o)
			if !scalar {
				return nil, r.fail(name, fmt.Errorf("%w: option %d is a %s, not a text", harness.ErrFieldType, i+1, kind(o)))
			}
			opts = append(opts, strings.TrimSpace(t))
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			t, scalar := scalarText(x[k])
			if !scalar {
				return nil, r.fail(name, fmt.Errorf("%w: option %q is a %s, not a text", harness.ErrFieldType, k, kind(x[k])))
			}
			opts = append(opts, strings.TrimSpace(t))
		}
	default:
		t, _ := scalarText(v)
		if strings.TrimSpace(t) == "" {
			return nil, nil
		}
		list, err := items.ParseList(t)
		if err != nil {
			return nil, r.fail(name, fmt.Errorf("%w: want a list of options: %v", harness.ErrFieldType, err))
		}
		for _, o := range list {
			opts = append(opts, strings.TrimSpace(o))
		}
	}
	return trimPadding(opts), nil
}

func trimPadding(opts []string) []string {
	for len(opts) > 0 && opts[len(opts)-1] == "" {
		opts = opts[:len(opts)-1]
	}
	return opts
}

// exists reports whether the field a bare-field template reads is in rec
// at all: a null option is an empty option, an absent key is not there.
func exists(rec map[string]any, tp *template) bool {
	if tp.field == "" {
		return false
	}
	if _, ok := rec[tp.field]; ok {
		return true
	}
	i := strings.LastIndexByte(tp.field, '.')
	if i < 0 {
		return false
	}
	parent, ok := lookup(rec, tp.field[:i])
	if m, isMap := parent.(map[string]any); ok && isMap {
		_, found := m[tp.field[i+1:]]
		return found
	}
	return false
}
