package models

// Tokenizer is what the role runners need from a tokenizer. LoadTokenizer
// returns one backed by models/tokenizer; tests may supply their own.
type Tokenizer interface {
	// Encode returns the ids of text, with the model's special tokens
	// ([CLS]/[SEP], <|startoftext|>/<|endoftext|>) when addSpecial is set.
	Encode(text string, addSpecial bool) ([]int, error)
	// TokenID returns the id of one vocabulary entry.
	TokenID(token string) (int, bool)
	// Decode turns ids back into text, leaving special tokens out.
	Decode(ids []int) string
}
