package run

import (
	"bytes"
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/kernels"
)

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	textembed.TextEmbedder
	texts *atomic.Int64
}

func (e countingEmbedder) Embed(ctx context.Context, texts []string) (*kernels.Matrix, error) {
	e.texts.Add(int64(len(texts)))
	return e.TextEmbedder.Embed(ctx, texts)
}

// exactEmbedder is the strictest second model: a text's row is a seeded
// random unit vector drawn from the text itself, so only identical texts
// have a cosine near 1.
type exactEmbedder struct{}

func (exactEmbedder) Name() string { return "exact-text-d32" }
func (exactEmbedder) Dim() int     { return 32 }
func (exactEmbedder) Embed(_ context.Context, texts []string) (*kernels.Matrix, error) {
	m := kernels.NewMatrix(len(texts), 32)
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		var norm float64
		row := m.Row(i)
		for k := range row {
			row[k] = float32(r.NormFloat64())
			norm += float64(row[k]) * float64(row[k])
		}
		for k := range row {
			row[k] /= float32(math.Sqrt(norm))
		}
	}
	return m, nil
}

// TestAuditConfirmsPairsWithASecondEmbedder confirms the lexical pairs of
// questions with a second embedder that keeps only verbatim repeats, then
// resumes and checks that the confirming embeddings come from the cache.
func TestAuditConfirmsPairsWithASecondEmbedder(t *testing.T) {
	t.Parallel()
	items := realItems(t, 400)
	out := filepath.Join(t.TempDir(), "run")
	var n atomic.Int64
	confirm := countingEmbedder{exactEmbedder{}, &n}
	res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 3, Workers: 2, Confirm: confirm})

	b, err := os.ReadFile(filepath.Join(out, rundir.DuplicatesFile))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Sim        float32 `parquet:"similarity"`
		ConfirmSim float32 `parquet:"confirm_similarity"`
	}
	rows, err := parquet.Read[row](bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Sim < dups.DefaultThreshold || r.ConfirmSim < dups.DefaultThreshold {
			t.Errorf("a kept pair has similarities %v and %v", r.Sim, r.ConfirmSim)
		}
	}
	removed := 0
	for _, c := range res.Cards {
		if c.YesNoOnly { // VideoHallucer's items are set aside
			continue
		}
		if c.UnconfirmedDuplicates == nil {
			t.Fatalf("%s: no count of unconfirmed pairs", c.Benchmark)
		}
		removed += *c.UnconfirmedDuplicates
	}
	t.Logf("%d pairs kept, %d removed by confirmation; %d texts embedded a second time", len(rows), removed, n.Load())
	if removed == 0 {
		t.Errorf("the exact-text embedder confirmed all %d pairs: the test no longer tests rejection", len(rows))
	}
	if n.Load() == 0 || n.Load() >= int64(res.Items) {
		t.Errorf("the confirming embedder embedded %d texts of %d items; want only the items of candidate pairs", n.Load(), res.Items)
	}
	cfg, _ := os.ReadFile(filepath.Join(out, rundir.ConfigFile))
	if !bytes.Contains(cfg, []byte(`"confirm_embedder": "exact-text-d32"`)) {
		t.Errorf("config.json does not name the confirming embedder:\n%s", cfg)
	}

	n.Store(0)
	again := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 3, Workers: 1, Confirm: confirm})
	if !again.Resumed || n.Load() != 0 {
		t.Errorf("resumed %v, %d texts embedded again; want the cache", again.Resumed, n.Load())
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	mustAudit(t, Options{Items: []string{items}, Out: fresh, Seed: 3, Workers: 1, Confirm: confirm})
	sameOutputs(t, out, fresh)
}
