package vidomni

import (
	"errors"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// Any input either reads or fails with a ParseError naming the file; a
// pair read always has 1-5 as type and a known label on every sentence.
func FuzzReadLabels(f *testing.F) {
	f.Add(`{"pair": "p", "video": "v", "source": "s", "type": 1, "duration": 3, "sentences": [{"text": "a", "label": "Correct"}]}`)
	f.Add(`{"pair": "p", "video": "v", "source": "s", "type": 5, "duration": "long", "sentences": [{"text": "a", "label": "Incorrect", "categories": ["order"]}]}`)
	f.Add("{}\n[]")
	f.Fuzz(func(t *testing.T, data string) {
		pairs, err := ReadLabels(strings.NewReader(data), "f.jsonl")
		if err != nil {
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.File != "f.jsonl" {
				t.Fatalf("error %v is not a ParseError naming the file", err)
			}
			return
		}
		for _, p := range pairs {
			if p.Type < 1 || p.Type > 5 || len(p.Sentences) == 0 {
				t.Fatalf("pair %+v", p)
			}
			for _, s := range p.Sentences {
				if s.Label != Correct && s.Label != Incorrect && s.Label != Unknown {
					t.Fatalf("label %q", s.Label)
				}
			}
		}
	})
}
