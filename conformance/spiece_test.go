package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestSentencePieceDecodesRealModel reads a SentencePiece model that
// Google's protobuf library wrote (Microsoft's NMT model, with the training
// fields a real file carries: paths, control symbols, sampling sizes) and
// requires exactly what transformers' converter copied from it into its
// tokenizer.json: every piece in order, every score (float32, widened),
// the unk id, the user-defined pieces (its added tokens), 256 byte pieces
// and the precompiled charsmap byte for byte. The model puts "▁" after
// words (treat_whitespace_as_suffix), which the converter ignores and the
// loader refuses by name, so ids are not compared here (T5's are, above).
func TestSentencePieceDecodesRealModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"vocab.joint.spm", "tokenizer.json"} {
		if err := copyFile(filepath.Join("testdata", "spiece", "nmt", f+".bz2"), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := tokenizer.ReadSentencePiece(filepath.Join(dir, "vocab.joint.spm"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Normalizer struct {
			Normalizers []struct {
				Type     string `json:"type"`
				Charsmap string `json:"precompiled_charsmap"`
			} `json:"normalizers"`
		} `json:"normalizer"`
		Model struct {
			UnkID int               `json:"unk_id"`
			Vocab []json.RawMessage `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(m.Pieces) != len(ref.Model.Vocab) || len(m.Pieces) != 32000 {
		t.Fatalf("%d pieces, tokenizer.json %d, want 32000", len(m.Pieces), len(ref.Model.Vocab))
	}
	var diffs int
	types := map[int]int{}
	for i, p := range m.Pieces {
		var entry []any
		if err := json.Unmarshal(ref.Model.Vocab[i], &entry); err != nil || len(entry) != 2 {
			t.Fatalf("tokenizer.json vocab[%d]: %s", i, ref.Model.Vocab[i])
		}
		if entry[0] != p.Piece || entry[1] != float64(p.Score) {
			diffs++
			if diffs <= 5 {
				t.Errorf("piece %d: %q %v, tokenizer.json %q %v", i, p.Piece, p.Score, entry[0], entry[1])
			}
		}
		types[p.Type]++
	}
	if m.UnkID != ref.Model.UnkID || m.Pieces[m.UnkID].Type != tokenizer.PieceUnknown {
		t.Errorf("unk id %d, tokenizer.json %d", m.UnkID, ref.Model.UnkID)
	}
	for _, a := range ref.AddedTokens {
		want := tokenizer.PieceUserDefined
		if a.Special {
			want = tokenizer.PieceControl
		}
		if a.ID >= len(m.Pieces) || m.Pieces[a.ID].Piece != a.Content || m.Pieces[a.ID].Type != want {
			t.Errorf("added token %d %q (special %v): the model has %+v", a.ID, a.Content, a.Special, m.Pieces[min(a.ID, len(m.Pieces)-1)])
		}
	}
	if types[tokenizer.PieceByte] != 256 || types[tokenizer.PieceUserDefined] != 19 || !m.ByteFallback {
		t.Errorf("piece types %v, byte_fallback %v; want 256 BYTE, 19 USER_DEFINED, byte_fallback", types, m.ByteFallback)
	}
	if len(ref.Normalizer.Normalizers) == 0 || ref.Normalizer.Normalizers[0].Type != "Precompiled" {
		t.Fatalf("tokenizer.json normalizer %+v: want Precompiled first", ref.Normalizer)
	}
	cm, err := base64.StdEncoding.DecodeString(ref.Normalizer.Normalizers[0].Charsmap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cm, m.PrecompiledCharsmap) {
		t.Errorf("charsmap: %d bytes, tokenizer.json's %d bytes, not equal", len(m.PrecompiledCharsmap), len(cm))
	}
	if _, err := m.Tokenizer("vocab.joint.spm", tokenizer.SentencePieceOptions{}); err == nil || !strings.Contains(err.Error(), "treat_whitespace_as_suffix") {
		t.Errorf("tokenizer: error %v, want treat_whitespace_as_suffix refused", err)
	}
	if diffs > 0 {
		t.Fatalf("%d of %d pieces differ", diffs, len(m.Pieces))
	}
	t.Logf("%d pieces and scores, %d added tokens, %d-byte charsmap: equal", len(m.Pieces), len(ref.AddedTokens), len(cm))
}
