package tokenizer

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tinySPM is a hand-made Unigram model: whole words cost less than their
// letters, so "hello" is one piece after "▁" and letters alone.
func tinySPM() *SentencePieceModel {
	m := &SentencePieceModel{
		ModelType: SPMUnigram, UnkID: 2, BOSID: -1, EOSID: 1, PadID: 0,
		AddDummyPrefix: true, RemoveExtraWhitespaces: true, EscapeWhitespaces: true,
		Pieces: []SentencePiece{{"<pad>", 0, PieceControl}, {"</s>", 0, PieceControl}, {"<unk>", 0, PieceUnknown},
			{"▁", -2, PieceNormal}, {"▁hello", -3, PieceNormal}, {"▁world", -3, PieceNormal}},
	}
	for _, r := range "helowrd" {
		m.Pieces = append(m.Pieces, SentencePiece{string(r), -5, PieceNormal})
	}
	return m
}

func TestSentencePieceRoundTrip(t *testing.T) {
	t.Parallel()
	m := tinySPM()
	m.PrecompiledCharsmap = []byte{1, 2, 3}
	m.NormalizerName = "nmt_nfkc"
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseSentencePiece(b, "tiny.model")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("parsed %+v\nwant %+v", got, m)
	}
}

// TestSentencePieceTokenize: hand-worked segmentations of tinySPM, with
// the dummy prefix (T5) and without it (SigLIP's slow tokenizer).
func TestSentencePieceTokenize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text    string
		opts    SentencePieceOptions
		special bool
		want    []int
		decoded string
	}{
		{"hello world", SentencePieceOptions{}, false, []int{4, 5}, "hello world"},
		{"  hello   world  ", SentencePieceOptions{AddEOS: true}, true, []int{4, 5, 1}, "hello world"},
		{"hello", SentencePieceOptions{NoDummyPrefix: true}, false, []int{6, 7, 8, 8, 9}, "hello"},
		// A leading space stays without the dummy prefix (it is "▁hello");
		// SigLIP's "▁" in front of it makes "▁" + "▁hello".
		{" hello  world ", SentencePieceOptions{NoDummyPrefix: true, AddEOS: true}, true, []int{4, 5, 1}, " hello world"},
		{"▁ hello", SentencePieceOptions{NoDummyPrefix: true}, false, []int{3, 4}, "  hello"},
		{"hex", SentencePieceOptions{}, false, []int{3, 6, 7, 2}, "he"},
		{"hello</s>", SentencePieceOptions{}, false, []int{4, 1}, "hello"},
	} {
		tok, err := tinySPM().Tokenizer("tiny.model", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		e, err := tok.Encode(c.text, c.special)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(e.IDs, c.want) {
			t.Errorf("%q %+v: ids %v %v, want %v", c.text, c.opts, e.IDs, e.Tokens, c.want)
		}
		if d := tok.Decode(e.IDs, true); d != c.decoded {
			t.Errorf("%q %+v: decodes to %q, want %q", c.text, c.opts, d, c.decoded)
		}
	}
}

// TestSentencePieceExtraIDs: T5Tokenizer's sentinels follow the pieces in
// reverse order.
func TestSentencePieceExtraIDs(t *testing.T) {
	t.Parallel()
	m := tinySPM()
	tok, err := m.Tokenizer("tiny.model", SentencePieceOptions{ExtraIDs: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := len(m.Pieces)
	for i, want := range []int{n + 2, n + 1, n} {
		if id, ok := tok.TokenToID("<extra_id_" + string(rune('0'+i)) + ">"); !ok || id != want {
			t.Errorf("<extra_id_%d> is %d %v, want %d", i, id, ok, want)
		}
	}
}

// TestSentencePieceBadFiles: corrupt or unsupported models are errors that
// name the file and the field.
func TestSentencePieceBadFiles(t *testing.T) {
	t.Parallel()
	good, _ := tinySPM().MarshalBinary()
	mutate := func(f func(m *SentencePieceModel)) []byte {
		m := tinySPM()
		f(m)
		b, _ := m.MarshalBinary()
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-3], "normalizer_spec"},
		{"length past end", []byte{0x0a, 0x40, 0x0a}, "pieces[0]: length 64 past the end"},
		{"score wire type", []byte{0x0a, 0x04, 0x0a, 0x00, 0x10, 0x01}, "pieces[0].score: field score: wire type 0, want 5"},
		{"piece type", []byte{0x0a, 0x04, 0x0a, 0x00, 0x18, 0x09}, "pieces[0].type: unknown piece type 9"},
		{"not utf-8", []byte{0x0a, 0x03, 0x0a, 0x01, 0xff}, "pieces[0].piece"},
		{"empty", nil, "pieces: none"},
		{"unk out of range", mutate(func(m *SentencePieceModel) { m.UnkID = 99 }), "trainer_spec.unk_id: 99 is outside"},
		{"unk not unknown", mutate(func(m *SentencePieceModel) { m.UnkID = 3 }), "trainer_spec.unk_id: piece 3"},
		{"varint too long", append([]byte{0x0a}, slices.Repeat([]byte{0xff}, 11)...), "pieces[0]: varint longer than 10 bytes"},
		{"pieces wire type", []byte{0x0b}, "pieces[0]: field pieces: wire type 3, want 2"},
		{"group wire type", []byte{0x23}, "field 4: wire type 3"},
	} {
		_, err := ParseSentencePiece(c.data, "bad.model")
		if err == nil || !strings.Contains(err.Error(), "bad.model") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one naming bad.model and %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		f    func(m *SentencePieceModel)
		want string
	}{
		{"bpe", func(m *SentencePieceModel) { m.ModelType = SPMBPE }, "BPE models are not supported"},
		{"suffix", func(m *SentencePieceModel) { m.TreatWhitespaceAsSuffix = true }, "treat_whitespace_as_suffix"},
		{"no escape", func(m *SentencePieceModel) { m.EscapeWhitespaces = false }, "escape_whitespaces"},
		{"named normalizer without map", func(m *SentencePieceModel) { m.NormalizerName = "nmt_nfkc" }, "precompiled_charsmap: empty"},
		{"eos missing", func(m *SentencePieceModel) { m.EOSID = -1 }, "eos_id"},
	} {
		m := tinySPM()
		c.f(m)
		_, err := m.Tokenizer("bad.model", SentencePieceOptions{AddEOS: true})
		if err == nil || !strings.Contains(err.Error(), "bad.model") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one naming bad.model and %q", c.name, err, c.want)
		}
	}
}

// FuzzParseSentencePiece feeds arbitrary bytes (and mutations of a real
// model's encoding) to the spiece.model reader: it must never panic, and a
// model it accepts must build a tokenizer or fail with an error, and that
// tokenizer must encode without panicking.
func FuzzParseSentencePiece(f *testing.F) {
	good, _ := tinySPM().MarshalBinary()
	f.Add(good)
	f.Add([]byte{0x0a, 0x04, 0x0a, 0x00, 0x10, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseSentencePiece(data, "fuzz.model")
		if err != nil {
			return
		}
		for _, opts := range []SentencePieceOptions{{AddEOS: true}, {NoDummyPrefix: true}} {
			tok, err := m.Tokenizer("fuzz.model", opts)
			if err != nil {
				continue
			}
			tok.Encode("▁ Hello, world: a question about the video?", true)
		}
	})
}
