package tokenizer

import (
	"strings"
	"testing"
	"time"
)

func TestTmpLong(t *testing.T) {
	for _, f := range []string{"clip_bpe_tokenizer.json", "bert_wordpiece_tokenizer.json"} {
		tok := loadShared(t, f)
		tok.SetTruncation(nil)
		tok.SetPadding(nil)
		for _, s := range []string{strings.Repeat("ab", 100000), strings.Repeat("x ", 100000), strings.Repeat("日", 100000)} {
			start := time.Now()
			e, err := tok.Encode(s, true)
			t.Log(f, len(s), e.Len(), err, time.Since(start))
		}
	}
	tok := loadFixture(t, "t5_tiny.json")
	start := time.Now()
	e, _ := tok.Encode(strings.Repeat("hello", 100000), true)
	t.Log("t5", e.Len(), time.Since(start))
}
