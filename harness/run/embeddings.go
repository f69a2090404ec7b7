package run

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/npy"
)

// embeddingOutputs lists the embedding files of the run and their writers.
func (a *audit) embeddingOutputs() []output {
	outs := []output{{rundir.QuestionNPY, a.question.writeNPY}, {rundir.TextNPY, a.text.writeNPY}}
	if a.visual == nil {
		return outs
	}
	var centre, mean *kernels.Matrix
	for i, v := range a.visual {
		row := v.Centre
		if row == nil && v.Bag != nil && v.Bag.Rows > 0 {
			row = v.Bag.Row(v.Bag.Rows / 2)
		}
		if row != nil {
			if centre == nil {
				centre = kernels.NewMatrix(len(a.items), len(row))
			}
			copy(centre.Row(i), row)
		}
		if i < len(a.meanFrames) && a.meanFrames[i] != nil {
			if mean == nil {
				mean = kernels.NewMatrix(len(a.items), len(a.meanFrames[i]))
			}
			copy(mean.Row(i), a.meanFrames[i])
		}
	}
	if centre != nil {
		outs = append(outs, output{rundir.CentreFrameNPY, npyWriter(centre)})
	}
	if mean != nil {
		outs = append(outs, output{rundir.MeanFrameNPY, npyWriter(mean)})
	}
	return outs
}

// An output is one file of the run directory and the function that writes it.
type output struct {
	name  string
	write func(io.Writer) error
}

func npyWriter(m *kernels.Matrix) func(io.Writer) error {
	return func(w io.Writer) error { return npy.Write(w, m, "<f4") }
}

// embed is the embed stage: it computes (or finds in the cache) the question+options embeddings
// the pool attackers read and the question embeddings the copy attacker and
// the near-duplicate search read. The default lexical embedder is fitted on
// each benchmark's own texts and embeds that benchmark's items only, so that
// no benchmark's rows (and no figure of its card) depend on which other
// benchmarks share the run. Either way the cache holds one matrix per
// benchmark, so that a run extended with new benchmarks embeds only theirs.
//
// The stage works one benchmark at a time and keeps nothing of it in memory:
// each matrix goes to its cache file, which a.text and a.question then read
// by rows (embedRows). A benchmark's lexical embedder is fitted only when
// one of its matrices is not cached, and let go after it.
func (a *audit) embed(ctx context.Context, emb textembed.TextEmbedder, lexical bool) error {
	t0 := time.Now()
	// One embedder per benchmark: the model for every benchmark, or the
	// lexical embedder fitted on the benchmark's texts.
	groups := textembed.BenchmarkItems(a.items)
	cache := a.cache()
	name := emb.Name()
	a.text = newEmbedRows(len(a.items), emb.Dim())
	a.question = newEmbedRows(len(a.items), emb.Dim())
	m := newMeter(a.opt.Progress, 2*int64(len(a.items)), "embed ", "texts")
	cached := 0
	for _, g := range groups {
		texts := make([]string, len(g.Items))
		questions := make([]string, len(g.Items))
		for k, i := range g.Items {
			texts[k] = textembed.ItemText(a.items[i])
			questions[k] = textembed.QuestionText(a.items[i])
		}
		var fitKey []string // what the fit read: each text with its benchmark
		if lexical {
			fitKey = make([]string, len(g.Items))
			for k, i := range g.Items {
				fitKey[k] = a.items[i].Benchmark + "\x00" + texts[k]
			}
		}
		gemb := emb
		for _, kind := range []struct {
			name string
			src  []string
			dst  *embedRows
		}{{"text", texts, a.text}, {"question", questions, a.question}} {
			key := rundir.ContentKey(name, fitKey, kind.src)
			r, err := cache.open(kind.name, key, len(kind.src), emb.Dim())
			if err != nil {
				m.exit()
				return err
			}
			if r != nil {
				cached += len(kind.src)
				m.add(len(kind.src))
				if err := kind.dst.add(r, g.Items); err != nil {
					r.Close()
					m.exit()
					return err
				}
				continue
			}
			if lexical && g.Lexical == nil {
				g.Fit(a.items, emb.Dim())
				gemb = g.Lexical
			}
			e, bad, err := embedAll(ctx, gemb, kind.src, m.add)
			if err != nil {
				m.exit()
				return fmt.Errorf("embed %s: %w", map[string]string{"text": "item texts", "question": "questions"}[kind.name], err)
			}
			for _, k := range bad {
				a.textFailed(g.Items[k])
			}
			// A matrix with a non-finite embedding is not cached, so that a
			// resumed run finds the same failures; it stays in memory (only
			// a model's embedder gives one, and only for a few texts).
			var rows kernels.RowReader = e
			if len(bad) == 0 {
				if rows, err = cache.storeOpen(kind.name, key, e); err != nil {
					m.exit()
					return err
				}
			}
			if err := kind.dst.add(rows, g.Items); err != nil {
				m.exit()
				return err
			}
		}
	}
	m.finish()
	if cached > 0 {
		a.opt.Progress.Note("embeddings read from the cache", "dir", cache.dir, "texts", cached)
	}
	a.stage("embed", t0)
	return nil
}
