package tokenizer

// PrependLowercase makes the tokenizer lowercase every text before its own
// normalizer runs, as transformers' Siglip2Tokenizer does to Gemma's
// tokenizer (normalizers.Sequence([Lowercase(), the file's normalizer])):
// SigLIP2 was trained on lowercased text. Lowercasing twice is lowercasing
// once, so a file that already lowercases is unchanged. Like SetPadding it
// must not be called while other goroutines encode.
func (t *Tokenizer) PrependLowercase() {
	if t.normalizer == nil {
		t.normalizer = lowercaseNormalizer{}
		return
	}
	t.normalizer = sequenceNormalizer{lowercaseNormalizer{}, t.normalizer}
}
