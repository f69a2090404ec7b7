package spec

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
)

func (f *Filter) compile() error {
	if f.Field == "" {
		return errors.New("field: required")
	}
	n := 0
	for _, set := range []bool{f.Equals != nil, f.In != nil, f.NotIn != nil, f.Truthy != nil, f.Matches != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("field %s: give exactly one of equals, in, not_in, truthy, matches (%d given)", f.Field, n)
	}
	if f.Matches != "" {
		re, err := regexp.Compile(f.Matches)
		if err != nil {
			return fmt.Errorf("field %s: matches: %v", f.Field, err)
		}
		f.re = re
	}
	return nil
}

// keep reports whether rec passes the filter. A record without the field
// passes only not_in and truthy: false.
func (f *Filter) keep(rec map[string]any) bool {
	v, ok := lookup(rec, f.Field)
	s, _ := scalarText(v)
	switch {
	case f.Equals != nil:
		return ok && s == *f.Equals
	case f.In != nil:
		return ok && slices.Contains(f.In, s)
	case f.NotIn != nil:
		return !ok || !slices.Contains(f.NotIn, s)
	case f.Truthy != nil:
		return truthy(v, ok) == *f.Truthy
	default:
		return ok && f.re.MatchString(s)
	}
}

// truthy is Python's truth of a value, which is what the specs' authors
// mean: empty, zero, false and null are false.
func truthy(v any, ok bool) bool {
	if !ok {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	f, err := number(v)
	return err != nil || f != 0
}
