package models

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestSmallModelsDirPassesCheck checks that onnxbuild.WriteModelsDir (what
// `vidscreen models init` writes) is a complete models directory: every
// role loads, and its generated tokenizer gives BERT's special ids, one id
// per common word and characters for the rest.
func TestSmallModelsDirPassesCheck(t *testing.T) {
	dir := t.TempDir()
	if err := onnxbuild.WriteModelsDir(dir); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckDir(context.Background(), dir, RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	if len(rep.Roles) != len(Roles) || !rep.OK() {
		t.Fatalf("report:\n%s", rep)
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "text_embed", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	ids, err := tok.Encode("What is the Man doing? zq", true)
	if err != nil {
		t.Fatal(err)
	}
	word := func(s string) int { id, _ := tok.TokenID(s); return id }
	want := []int{101, word("what"), word("is"), word("the"), word("man"), word("doing"), word("?"), word("z"), word("##q"), 102}
	if !slices.Equal(ids, want) || slices.Contains(ids, 100) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if got := tok.Decode(ids); got != "what is the man doing? zq" {
		t.Errorf("decode %q", got)
	}
}
