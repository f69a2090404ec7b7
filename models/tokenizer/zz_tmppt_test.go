package tokenizer

import (
	"encoding/json"
	"os"
	"testing"
)

func TestTmpPreTok(t *testing.T) {
	dir := os.Getenv("TOKREF")
	if dir == "" {
		t.Skip()
	}
	var texts []string
	b, _ := os.ReadFile(dir + "/pt_texts.json")
	json.Unmarshal(b, &texts)
	var js map[string][][]string
	b, _ = os.ReadFile(dir + "/pt_js.json")
	json.Unmarshal(b, &js)
	for _, name := range []string{"gpt2_tiny", "qwen2_tiny", "clip"} {
		var tok *Tokenizer
		if name == "clip" {
			tok = loadShared(t, "clip_bpe_tokenizer.json")
		} else {
			tok = loadFixture(t, name+".json")
		}
		bad := 0
		for i, s := range texts {
			var nt, tmp normText
			nt.setOriginal(s, 0)
			if tok.normalizer != nil {
				tok.normalizer.normalize(&nt, &tmp)
			}
			var ar arena
			ps := tok.pre.preTokenize([]piece{{nt.s, nt.align}}, nil, &ar)
			var got []string
			for _, p := range ps {
				got = append(got, string(p.s))
			}
			want := js[name][i]
			same := len(got) == len(want)
			for k := 0; same && k < len(got); k++ {
				same = got[k] == want[k]
			}
			if !same {
				bad++
				if bad <= 5 {
					t.Errorf("%s %q: got %q want %q", name, s, got, want)
				}
			}
		}
		t.Logf("%s: %d of %d differ", name, bad, len(texts))
	}
}
