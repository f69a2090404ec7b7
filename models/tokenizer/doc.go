// Package tokenizer reads HF tokenizer.json files and encodes text exactly
// as the reference implementation (huggingface/tokenizers) does, in pure Go.
//
// Text moves through the same stages as in the reference:
//
//  1. added tokens ([CLS], <|endoftext|>, ...) are cut out of the raw input;
//  2. each remaining part is normalized (BertNormalizer, NFC/NFKC, Replace,
//     Lowercase, Strip, Precompiled, ...), every normalized byte remembering
//     the input range it came from, and added tokens marked "normalized" are
//     cut out of the result;
//  3. a pre-tokenizer splits the text into words (BertPreTokenizer, the
//     CLIP/GPT-2/Qwen2 regexes as hand-written scanners, ByteLevel,
//     Metaspace, ...);
//  4. the model turns each word into tokens: WordPiece (BERT, BGE, MiniLM,
//     MPNet), BPE (CLIP with "</w>" word ends, byte-level GPT-2, RoBERTa,
//     Qwen; with a per-word cache) or Unigram (SentencePiece files of T5 and
//     SigLIP; Viterbi over piece scores);
//  5. truncation, then the post-processor's special tokens and type ids,
//     then padding.
//
// Decode maps ids back to tokens and runs the file's decoder chain
// (WordPiece "##" joining, ByteLevel bytes, Metaspace spaces, byte
// fallback). Where transformers adds to the file's decoder, Decode does too:
// "</w>" word ends of CLIP files become spaces, and spaces before
// punctuation and contractions are cleaned up (clean_up_tokenization).
//
// Lowercasing is per character, as in the reference's Rust code: a final
// capital sigma becomes σ, where Python's str.lower (used by openai/CLIP's
// own tokenizer) gives ς. This is the one difference found between this
// package and a JavaScript port of the reference over 79,317 real
// questions and options.
//
// Offsets in an Encoding are byte offsets into the text that was encoded
// (the reference's Python API reports character offsets instead).
//
// Components a file may name but this package does not implement (for
// example the CTC decoder or the UnicodeScripts pre-tokenizer) make Load
// fail with an error naming the component and the file, rather than
// encode differently from the reference; so do a field that a component
// does not define and a null where the format needs a value (load_fields.go).
//
// Load also reads, from the tokenizer_config.json beside the file,
// clean_up_tokenization_spaces, which transformers applies to every
// decoded text (Whisper's and T5's files turn it on).
//
// conformance/tokenizers_test.go checks the ids and decoded texts against
// transformers.js on seven real files (BERT, CLIP, T5, Whisper tiny and
// large-v3, Qwen3, Gemma 3) and 782 texts; where transformers.js differs
// from the Rust library (a word-final Σ, CJK ideographs beyond U+FFFF,
// U+0085 and U+FEFF in \s, T5's charsmap, which it approximates with NFKC,
// U+FEFF in CLIP's decode trim), this package follows the Rust library, and
// the test says so.
package tokenizer
