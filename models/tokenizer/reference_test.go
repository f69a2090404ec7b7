package tokenizer

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// loadShared loads a tokenizer file from the shared data, skipping the test
// when the folder is absent.
func loadShared(t testing.TB, name string) *Tokenizer {
	t.Helper()
	path := shareddata.Path(t, "tokenizers", name)
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type referenceCase struct {
	Text          string `json:"text"`
	CLIP          []int  `json:"clip_bpe"`
	BertWordPiece []int  `json:"bert_wordpiece"`
}

func loadReference(t *testing.T) []referenceCase {
	t.Helper()
	path := shareddata.Path(t, "tokenizers", "reference_ids.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	return cases
}

// TestReferenceIDs checks every id of the shared reference file, for both
// tokenizer files.
func TestReferenceIDs(t *testing.T) {
	cases := loadReference(t)
	files := []struct {
		file string
		want func(referenceCase) []int
	}{
		{"bert_wordpiece_tokenizer.json", func(c referenceCase) []int { return c.BertWordPiece }},
		{"clip_bpe_tokenizer.json", func(c referenceCase) []int { return c.CLIP }},
	}
	for _, f := range files {
		tok := loadShared(t, f.file)
		// The BERT file pads to 128 and truncates at 128; the reference
		// ids are unpadded. Compare without padding, then check padding.
		pad := tok.Padding()
		tok.SetPadding(nil)
		for _, c := range cases {
			want := f.want(c)
			enc, err := tok.Encode(c.Text, true)
			if err != nil {
				t.Fatalf("%s: Encode(%q): %v", f.file, c.Text, err)
			}
			if !slices.Equal(enc.IDs, want) {
				t.Errorf("%s: Encode(%q)\n got %v %q\nwant %v", f.file, c.Text, enc.IDs, enc.Tokens, want)
			}
			if pad != nil {
				tok.SetPadding(pad)
				padded, err := tok.Encode(c.Text, true)
				tok.SetPadding(nil)
				if err != nil {
					t.Fatal(err)
				}
				if padded.Len() != pad.Length || !slices.Equal(padded.IDs[:len(want)], want) {
					t.Errorf("%s: padded Encode(%q) = %d ids, first %v; want %d, first %v", f.file, c.Text, padded.Len(), padded.IDs[:min(len(want), padded.Len())], pad.Length, want)
				}
				for i, m := range padded.AttentionMask {
					if (m == 1) != (i < len(want)) {
						t.Errorf("%s: padded Encode(%q): attention mask %v", f.file, c.Text, padded.AttentionMask)
						break
					}
				}
			}
		}
	}
}
