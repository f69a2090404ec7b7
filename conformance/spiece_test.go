package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

// t5SpieceSHA256 is the SHA-256 of testdata/spiece/t5-small/spiece.model
// uncompressed, as py/spiece_from_tokenizer_json.py writes it from T5's
// tokenizer.json (see testdata/spiece/README.md).
const t5SpieceSHA256 = "4e96f0ecc167acaa537d956f7429667269cdbee7e0361551fe503e3025a442f3"

// TestSentencePieceMatchesT5TokenizerJSON loads T5's SentencePiece model
// with the spiece.model loader (what a folder without tokenizer.json goes
// through) and T5's converted tokenizer.json with the tokenizer.json loader
// (equal to transformers.js on this corpus, TestTokenizersMatchTransformersJS),
// and requires the same ids for every text of the conformance corpus, with
// and without the "</s>" T5Tokenizer appends, and the same decoded text.
// T5Tokenizer's 100 "<extra_id_N>" sentinels are asked for as its
// tokenizer_config.json does.
func TestSentencePieceMatchesT5TokenizerJSON(t *testing.T) {
	t.Parallel()
	// The model goes beside T5's tokenizer.json and tokenizer_config.json,
	// so both loaders read the same clean_up_tokenization_spaces.
	dir := tokenizerFolder(t, "t5-small")
	model := filepath.Join(dir, "spiece.model")
	if err := copyFile(filepath.Join("testdata", "spiece", "t5-small", "spiece.model.bz2"), model); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != t5SpieceSHA256 {
		t.Fatalf("spiece.model SHA-256 %x, want %s", sum, t5SpieceSHA256)
	}
	m, err := tokenizer.ParseSentencePiece(raw, model)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pieces) != 32000 || m.UnkID != 2 || m.EOSID != 1 || m.PadID != 0 || m.BOSID != -1 || m.ModelType != tokenizer.SPMUnigram {
		t.Fatalf("model: %d pieces, unk %d eos %d pad %d bos %d type %d; want 32000, 2, 1, 0, -1, Unigram",
			len(m.Pieces), m.UnkID, m.EOSID, m.PadID, m.BOSID, m.ModelType)
	}
	if m.Pieces[3].Piece != "▁" || m.Pieces[4].Piece != "X" || m.Pieces[2].Type != tokenizer.PieceUnknown {
		t.Fatalf("first pieces %+v, want <pad> </s> <unk>(UNKNOWN) ▁ X", m.Pieces[:5])
	}
	spm, err := tokenizer.LoadSentencePiece(model, tokenizer.SentencePieceOptions{AddEOS: true, ExtraIDs: 100})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	texts := tokenizerTexts(t)
	var cases, mismatches int
	for _, text := range texts {
		for _, special := range []bool{false, true} {
			got, err := spm.Encode(text, special)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Encode(text, special)
			if err != nil {
				t.Fatal(err)
			}
			cases++
			if !slices.Equal(got.IDs, want.IDs) {
				mismatches++
				if mismatches <= 5 {
					t.Errorf("%q (special %v): spiece.model ids %v, tokenizer.json ids %v", clip(text), special, got.IDs, want.IDs)
				}
				continue
			}
			if g, w := spm.Decode(got.IDs, true), ref.Decode(want.IDs, true); g != w {
				mismatches++
				t.Errorf("%q: spiece.model decodes to %q, tokenizer.json to %q", clip(text), g, w)
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d cases differ", mismatches, cases)
	}
	t.Logf("%d texts, %d cases (with and without </s>): ids and decoded text equal", len(texts), cases)
}
