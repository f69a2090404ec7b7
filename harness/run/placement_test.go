package run

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
)

// placedBackend counts the searches an audit hands it.
type placedBackend struct {
	b            *cuda.Backend
	joins, topks atomic.Int64
}

func (p *placedBackend) ThresholdJoin(ctx context.Context, a, b *kernels.Matrix, tau float32, opt kernels.Options, emit func([]kernels.Pair) error) error {
	p.joins.Add(1)
	return p.b.ThresholdJoin(ctx, a, b, tau, opt, emit)
}

func (p *placedBackend) TopK(ctx context.Context, q, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	p.topks.Add(1)
	return p.b.TopK(ctx, q, x, k, opt)
}

func (p *placedBackend) TopKEarlier(ctx context.Context, x *kernels.Matrix, k int, opt kernels.Options) (*kernels.Neighbours, error) {
	p.topks.Add(1)
	return p.b.TopKEarlier(ctx, x, k, opt)
}

// An audit whose searches (the copy and k-NN attackers, their cross-pool
// variants, the near-duplicate join) run on kernels/cuda's Backend over
// the Host device writes the CPU's bytes, at 1 and 3 workers, directly
// and behind kernels.Offload (one search at a time, as audit --device
// places them): the attackers' columns of items.parquet, the cards and
// the duplicates.
func TestAuditSearchesOnABackendWriteTheCPUOutputs(t *testing.T) {
	items := realItems(t, 40)
	dir := t.TempDir()
	cpu := filepath.Join(dir, "cpu")
	mustAudit(t, Options{Items: []string{items}, Out: cpu, Seed: 5, Workers: 1, CrossPool: true})
	for _, tt := range []struct {
		name    string
		workers int
		offload bool
	}{{"1 worker", 1, false}, {"3 workers", 3, false}, {"3 workers, offloaded", 3, true}} {
		b := &placedBackend{b: &cuda.Backend{Device: cuda.Host{Rows: 32, Cols: 96}, Workers: tt.workers}}
		var j kernels.Joiner = b
		var s kernels.NeighbourSearcher = b
		if tt.offload {
			o := kernels.NewOffload(b, b, 1, 1)
			j, s = o, o
		}
		out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 5, Workers: tt.workers, CrossPool: true, Joiner: j, Searcher: s})
		sameOutputs(t, cpu, out)
		if b.joins.Load() == 0 || b.topks.Load() == 0 {
			t.Errorf("%s: the backend ran %d joins and %d top-k searches; the audit searched elsewhere", tt.name, b.joins.Load(), b.topks.Load())
		}
	}
}
