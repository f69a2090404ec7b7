package gpu

import (
	"reflect"
	"testing"
)

// Any string either fails to parse or parses to a spec whose String parses
// back to the same spec.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"cpu", "cuda", "cuda:0", "cuda:1,0", "cuda:", "cuda:0,0", "gpu", " cuda:2 , 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSpec(s)
		if err != nil {
			return
		}
		again, err := ParseSpec(spec.String())
		if err != nil || !reflect.DeepEqual(again, spec) {
			t.Errorf("ParseSpec(%q) = %+v; String %q parses to %+v, %v", s, spec, spec.String(), again, err)
		}
	})
}
