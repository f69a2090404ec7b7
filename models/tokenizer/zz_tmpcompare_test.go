package tokenizer

import (
	"encoding/json"
	"os"
	"testing"
)

func TestTmpCompare(t *testing.T) {
	dir := os.Getenv("TOKREF")
	if dir == "" {
		t.Skip()
	}
	var texts []string
	b, _ := os.ReadFile(dir + "/texts.json")
	json.Unmarshal(b, &texts)
	for _, f := range []string{"bert_wordpiece", "clip_bpe"} {
		tok := loadShared(t, f+"_tokenizer.json")
		tok.SetPadding(nil)
		tok.SetTruncation(nil)
		type r struct {
			IDs []int  `json:"ids"`
			Dec string `json:"dec"`
		}
		var out []r
		for _, s := range texts {
			e, err := tok.Encode(s, true)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r{e.IDs, tok.Decode(e.IDs, true)})
		}
		b, _ := json.Marshal(out)
		os.WriteFile(dir+"/"+f+"_go.json", b, 0o644)
	}
}
