// Package attacktest runs the attackers end to end for tests and benchmarks
// of the attack, metrics and dups packages: it finds the development data,
// embeds items with the lexical embedder and drives every attacker over its
// seeded orders, as the run orchestration does, without records or files.
package attacktest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/kernels"
)

// RealFiles are the annotation files of the development data, as named in
// ../shared/data/README.md.
var RealFiles = []string{"nextqa.jsonl", "socialiq2.jsonl", "videohallucer.jsonl", "star.jsonl"}

// DataDir returns the development data folder, ../shared/data next to the
// module root, or skips tb (naming the path) when it is absent.
func DataDir(tb testing.TB) string {
	tb.Helper()
	shareddata.Path(tb, RealFiles[0])
	return shareddata.Path(tb)
}

// LoadReal reads the named files of the development data (all of RealFiles
// when none are named).
func LoadReal(tb testing.TB, files ...string) []*harness.Item {
	tb.Helper()
	dir := DataDir(tb)
	if len(files) == 0 {
		files = RealFiles
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f)
	}
	items, err := harness.ReadFiles(context.Background(), paths, harness.ReadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return items
}

// Embed returns the lexical question+options and question embeddings of
// items as a run computes them: one embedder per benchmark, fitted on that
// benchmark's question+options texts.
func Embed(ctx context.Context, items []*harness.Item) (text, question *kernels.Matrix, err error) {
	text = kernels.NewMatrix(len(items), textembed.DefaultDim)
	question = kernels.NewMatrix(len(items), textembed.DefaultDim)
	for _, bl := range textembed.LexicalPerBenchmark(items, textembed.DefaultDim) {
		texts := make([]string, len(bl.Items))
		questions := make([]string, len(bl.Items))
		for k, i := range bl.Items {
			texts[k] = textembed.ItemText(items[i])
			questions[k] = textembed.QuestionText(items[i])
		}
		t, err := bl.Lexical.Embed(ctx, texts)
		if err != nil {
			return nil, nil, err
		}
		q, err := bl.Lexical.Embed(ctx, questions)
		if err != nil {
			return nil, nil, err
		}
		for k, i := range bl.Items {
			copy(text.Row(i), t.Row(k))
			copy(question.Row(i), q.Row(k))
		}
	}
	return text, question, nil
}

// Stream builds the stream of variant v: items, and the rows of text and
// question (either may be nil), permuted into order.
func Stream(items []*harness.Item, order []int32, v int, seed uint64, text, question *kernels.Matrix) *attack.Stream {
	s := &attack.Stream{Variant: v, Seed: attack.OrderSeed(seed, v), Items: make([]*harness.Item, len(order))}
	for p, i := range order {
		s.Items[p] = items[i]
	}
	if text != nil {
		s.Text = permute(text, order)
	}
	if question != nil {
		s.Question = permute(question, order)
	}
	return s
}

func permute(m *kernels.Matrix, order []int32) *kernels.Matrix {
	out := kernels.NewMatrix(len(order), m.Cols)
	for p, i := range order {
		copy(out.Row(p), m.Row(int(i)))
	}
	return out
}

// RunAttacker runs a on every variant the configuration gives it and returns
// its outcomes.
func RunAttacker(ctx context.Context, a attack.Attacker, cfg attack.Config, items []*harness.Item, orders [][]int32, seed uint64, text, question *kernels.Matrix) ([]metrics.Outcome, error) {
	var out []metrics.Outcome
	if !attack.NeedsText(a) {
		text = nil
	}
	if !attack.NeedsQuestion(a) {
		question = nil
	}
	folds := attack.Folds(items, seed)
	for v := 0; v < attack.Variants(a, cfg); v++ {
		s := Stream(items, orders[v], v, seed, text, question)
		preds, err := a.Attack(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("%s, order %d: %w", a.Name(), v, err)
		}
		if len(preds) != len(items) {
			return nil, fmt.Errorf("%s, order %d: %d predictions for %d items", a.Name(), v, len(preds), len(items))
		}
		for p, pr := range preds {
			i := int(orders[v][p])
			out = append(out, metrics.Outcome{Item: i, Attacker: a.Name(), Level: a.Level(), Variant: v, Position: p, Scored: attack.Scored(a, folds[i], v), Pred: pr})
		}
	}
	return out, nil
}

// RunAll runs every attacker of cfg over items with the run's seed and
// returns all outcomes, attacker by attacker.
func RunAll(ctx context.Context, cfg attack.Config, items []*harness.Item, seed uint64, text, question *kernels.Matrix) ([]metrics.Outcome, error) {
	orders := attack.Orders(items, seed, max(cfg.Orders, 1))
	var out []metrics.Outcome
	for _, a := range attack.Attackers(cfg) {
		o, err := RunAttacker(ctx, a, cfg, items, orders, seed, text, question)
		if err != nil {
			return nil, err
		}
		out = append(out, o...)
	}
	return out, nil
}
