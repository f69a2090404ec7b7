package run

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
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

// TestAuditFailsOnlyTheItemsOfANonFiniteEmbedding: a NaN from the embedder
// used to pass into every similarity of its item (no duplicates, no
// neighbours, exit 0), then failed the whole run; now the items whose text
// gave it fail, with the reason, counted on their cards, and the run goes
// on. A resume writes the same cards.
func TestAuditFailsOnlyTheItemsOfANonFiniteEmbedding(t *testing.T) {
	t.Parallel()
	items := realItems(t, 5)
	lex := textembed.NewLexical(0)
	lex.Fit([]string{"a question"})
	emb := nanEmbedder{Lexical: lex, poison: "baby"}
	read, err := harness.ReadFiles(context.Background(), []string{items}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, it := range read {
		if strings.Contains(textembed.ItemText(it), "baby") || strings.Contains(textembed.QuestionText(it), "baby") {
			want[it.Benchmark]++
		}
	}
	// KeepYesNo: the poisoned word is in VideoHallucer's items, which are
	// bare yes/no pairs and would be set aside before anything embeds them.
	checkNonFiniteFailures(t, Options{Items: []string{items}, Out: filepath.Join(t.TempDir(), "run"), Embedder: emb, Seed: 1, KeepYesNo: true}, want)
}

// checkNonFiniteFailures runs opt, checks that each card counts want's
// items as failed with a non-finite embedding (and no other card any), then
// runs it again on the same directory and checks the cards do not change.
func checkNonFiniteFailures(t *testing.T, opt Options, want map[string]int) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("no item holds the poisoned text: the test checks nothing")
	}
	res := mustAudit(t, opt)
	total := 0
	for _, c := range res.Cards {
		got := c.Failures[features.FailureNonFinite]
		if got != want[c.Benchmark] || len(c.Failures) > 1 {
			t.Errorf("%s: failures %v, want %d %s", c.Benchmark, c.Failures, want[c.Benchmark], features.FailureNonFinite)
		}
		total += got
		if got >= c.N {
			t.Errorf("%s: every item failed (%d of %d): the poison should fail only some", c.Benchmark, got, c.N)
		}
	}
	if total == 0 {
		t.Fatal("no failure counted")
	}
	first, err := os.ReadFile(filepath.Join(opt.Out, rundir.CardsJSON))
	if err != nil {
		t.Fatal(err)
	}
	mustAudit(t, opt)
	again, err := os.ReadFile(filepath.Join(opt.Out, rundir.CardsJSON))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Error("cards.json changed on a second run over the same directory")
	}
}

// TestAuditFailsOnlyTheItemsANaNModelEmbeds runs a real ONNX text_embed
// model (onnxbuild's TinyBERT) whose embedding of the word "baby" is NaN:
// every text holding that token comes out NaN, through attention and the
// layer norms, and only the items of those texts fail.
func TestAuditFailsOnlyTheItemsANaNModelEmbeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "text_embed")
	enc := onnxbuild.NewEncoder(onnxbuild.TinyBERT)
	tokPath := filepath.Join(sub, "tokenizer.json")
	if err := enc.WriteDir(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokPath, onnxbuild.WordPieceTokenizer(), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := models.LoadTokenizer(tokPath)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := tok.TokenID("baby")
	if !ok {
		t.Fatal(`the tokenizer has no token "baby"`)
	}
	h := enc.Config.Hidden
	for k := range h {
		enc.Word[id*h+k] = float32(math.NaN())
	}
	if err := enc.WriteDir(sub); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(`{"roles": {"text_embed": {"dir": "text_embed", "pooling": "cls"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Threads: 1})
	if err != nil {
		t.Fatalf("ONNX Runtime (make setup-ort, or set %s): %v", models.LibraryEnv, err)
	}
	man, err := models.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := onnxembed.OpenModels(rt, man, gpu.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Embed.Close()

	items := realItems(t, 5)
	read, err := harness.ReadFiles(context.Background(), []string{items}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, it := range read {
		for _, text := range []string{textembed.ItemText(it), textembed.QuestionText(it)} {
			ids, err := tok.Encode(text, true)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(ids, id) {
				want[it.Benchmark]++
				break
			}
		}
	}
	// KeepYesNo: VideoHallucer's items hold the poisoned token too.
	checkNonFiniteFailures(t, Options{Items: []string{items}, Out: filepath.Join(t.TempDir(), "run"), Embedder: ms.Embed, Seed: 1, KeepYesNo: true}, want)
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
