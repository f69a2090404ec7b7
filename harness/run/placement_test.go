package run

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/kernels/cuda"
	"github.com/vidscreen/vidscreen/kernels/kernelstest"
)

// An audit whose searches (the copy and k-NN attackers, their cross-pool
// variants, the near-duplicate join) run on kernels/cuda's Backend over
// the Host device writes the CPU's bytes, at 1 and 3 workers, directly
// and behind kernels.Offload (one search at a time, as audit --device
// places them): the attackers' columns of items.parquet, the cards and
// the duplicates.
func TestAuditSearchesOnABackendWriteTheCPUOutputs(t *testing.T) {
	t.Parallel()
	items := realItems(t, 40)
	dir := t.TempDir()
	cpu := filepath.Join(dir, "cpu")
	mustAudit(t, Options{Items: []string{items}, Out: cpu, Seed: 5, Workers: 1, CrossPool: true})
	for _, tt := range []struct {
		name    string
		workers int
		offload bool
	}{{"1 worker", 1, false}, {"3 workers", 3, false}, {"3 workers, offloaded", 3, true}} {
		b := kernelstest.Count(&cuda.Backend{Device: cuda.Host{Rows: 32, Cols: 96}, Workers: tt.workers})
		var j kernels.Joiner = b
		var s kernels.NeighbourSearcher = b
		if tt.offload {
			o := kernels.NewOffload(b, b, 1, 1)
			j, s = o, o
		}
		out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 5, Workers: tt.workers, CrossPool: true, Joiner: j, Searcher: s})
		sameOutputs(t, cpu, out)
		if b.Joins() == 0 || b.TopKs() == 0 {
			t.Errorf("%s: the backend ran %d joins and %d top-k searches; the audit searched elsewhere", tt.name, b.Joins(), b.TopKs())
		}
	}
}
