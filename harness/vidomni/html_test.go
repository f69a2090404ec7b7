package vidomni

import (
	"bytes"
	"strings"
	"testing"
)

// A verifier that flags every sentence Incorrect has recall 100% by
// construction: the page warns of it, and names each heat map's verifier
// above the map.
func TestHTMLWarnsOfAVerifierThatFlagsEverything(t *testing.T) {
	t.Parallel()
	pairs, verdicts := readFixture(t)
	sentences := map[string]int{}
	for _, p := range pairs {
		sentences[p.ID] = len(p.Sentences)
	}
	for _, v := range verdicts {
		if v.Verifier == "B" {
			v.Reply, v.Labels = nil, make([]int8, sentences[v.Pair])
			for i := range v.Labels {
				v.Labels[i] = 1
			}
		}
	}
	tests := []struct {
		name     string
		verdicts []*Verdict
		warn     bool
	}{
		{"as read", nil, false},
		{"B flags every sentence", verdicts, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := tt.verdicts
			if vs == nil {
				_, vs = readFixture(t)
			}
			s, err := Score(pairs, vs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := s.WriteHTML(&b); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			warned := strings.Contains(page, `<p class="warn">B flagged every sentence it judged`)
			if warned != tt.warn {
				t.Errorf("warning shown %v, want %v", warned, tt.warn)
			}
			if strings.Contains(page, `<p class="warn">A flagged`) {
				t.Error("A, which does not flag everything, is warned of")
			}
			for _, name := range []string{"A", "B"} {
				if !strings.Contains(page, "<figure><h3>"+name+"</h3><svg") {
					t.Errorf("the heat map of %s is not headed by its name", name)
				}
			}
		})
	}
}
