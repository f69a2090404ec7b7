package tokenizer_test

import (
	"context"
	"fmt"
	"log"
	"path/filepath"

	"github.com/vidscreen/vidscreen/models/tokenizer"
)

func Example() {
	tok, err := tokenizer.Load(filepath.Join("testdata", "gpt2_tiny.json"))
	if err != nil {
		log.Fatal(err)
	}
	enc, err := tok.Encode("Hello world", true)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(enc.IDs, enc.Tokens, enc.Offsets)
	fmt.Printf("%q\n", tok.Decode(enc.IDs, true))
	// Output:
	// [262 267] [Hello Ġworld] [[0 5] [5 11]]
	// "Hello world"
}

func ExampleTokenizer_EncodeBatch() {
	tok, err := tokenizer.Load(filepath.Join("testdata", "t5_tiny.json"))
	if err != nil {
		log.Fatal(err)
	}
	// Pad every text to the longest of the batch with <pad> (id 0).
	tok.SetPadding(&tokenizer.Padding{PadID: 0, PadToken: "<pad>"})
	encs, err := tok.EncodeBatch(context.Background(), []string{"the cats", "hello the cats"}, true)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range encs {
		fmt.Println(e.IDs, e.AttentionMask)
	}
	// Output:
	// [4 9 1 0 0] [1 1 1 0 0]
	// [10 11 4 9 1] [1 1 1 1 1]
}
