package run

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// nanEmbedder is the lexical embedder, except that the text naming its
// poison comes back with a NaN, as a broken model's output might.
type nanEmbedder struct {
	*textembed.Lexical
	poison string
}

func (e nanEmbedder) Name() string { return "nan-" + e.Lexical.Name() }

func (e nanEmbedder) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	m, err := e.Lexical.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	for i, t := range texts {
		if strings.Contains(t, e.poison) {
			m.Row(i)[0] = float32(math.NaN())
		}
	}
	return m, nil
}

// TestAuditRefusesANonFiniteEmbedding: a NaN from the embedder used to pass
// into every similarity of its item (no duplicates, no neighbours, exit 0);
// now the run fails and names the text.
func TestAuditRefusesANonFiniteEmbedding(t *testing.T) {
	items := realItems(t, 5)
	lex := textembed.NewLexical(0)
	lex.Fit([]string{"a question"})
	emb := nanEmbedder{Lexical: lex, poison: "?"}
	_, err := Audit(context.Background(), Options{Items: []string{items}, Out: filepath.Join(t.TempDir(), "run"), Embedder: emb, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "non-finite") || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("audit with a NaN embedding: %v; want an error naming the non-finite value", err)
	}
}

// TestAuditRefusesAPipeAsReference: predictions files are read, then
// hashed, so a FIFO would block (or hash as empty) the second time; it is
// refused before anything is read, naming the file.
func TestAuditRefusesAPipeAsReference(t *testing.T) {
	items := realItems(t, 5)
	fifo := filepath.Join(t.TempDir(), "ref.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Audit(context.Background(), Options{Items: []string{items}, Out: filepath.Join(t.TempDir(), "run"), Reference: fifo, Seed: 1})
	var pe *harness.ParseError
	if !errors.As(err, &pe) || pe.File != fifo || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a FIFO as --reference: %v; want a ParseError naming it", err)
	}
}
