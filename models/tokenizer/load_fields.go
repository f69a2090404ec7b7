package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// fields checks the names and nulls of the JSON object raw, the part of
// the file named where ("normalizer \"Strip\"", "model \"BPE\""...).
//
// A field that is not in names is an error naming it: a field the loader
// does not read could change the ids (a newer version of the format, a
// typo), and encoding as if it were absent would be a silent difference
// from the reference. names are the fields the reference's types define
// for that part (huggingface/tokenizers, the serde form of each
// component), including those that do not change the ids (offsets
// trimming, the decoders' options) and the legacy ones the loader maps.
// "type" is always allowed.
//
// A field whose name ends in "?" may be null (an Option in the reference,
// such as BPE's "dropout"); any other null is an error naming the field,
// never a silent zero or false.
func (l loader) fields(raw json.RawMessage, where string, names ...string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: %s: %w", l.name, where, err)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad field named is the same on every run
	for _, k := range keys {
		if k == "type" {
			continue
		}
		nullable := slices.Contains(names, k+"?")
		if !nullable && !slices.Contains(names, k) {
			known := make([]string, len(names))
			for i, n := range names {
				known[i] = strings.TrimSuffix(n, "?")
			}
			return fmt.Errorf("%s: %s: field %q is not one the loader understands (it reads %s)", l.name, where, k, strings.Join(known, ", "))
		}
		if !nullable && bytes.Equal(bytes.TrimSpace(obj[k]), []byte("null")) {
			return fmt.Errorf("%s: %s: field %q is null", l.name, where, k)
		}
	}
	return nil
}

// check is fields for a tagged component: kind is the part of the file
// ("normalizer", "decoder"...), named with the component's type.
func (l loader) check(c *component, kind string, names ...string) error {
	return l.fields(c.raw, fmt.Sprintf("%s %q", kind, c.Type), names...)
}
