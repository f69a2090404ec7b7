package attack

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// A Pool is every item of the run with its unit embeddings (rows in Items
// order; Text or Question nil when the attacker needs neither), given to
// the cross-pool attackers (CrossPool) on Stream.Pool: a benchmark's
// cross-pool store is preloaded with the items of the other benchmarks, all
// answered, gold included, before the benchmark's first item (the blog,
// 001, tables 14-15, superscript c: "a store preloaded with other
// benchmarks"). An item's own benchmark never enters its store from the
// pool: within it the prequential rule of the within-benchmark attacker
// holds, so an item's own gold never enters before it is answered.
type Pool struct {
	Items    []*harness.Item
	Text     *kernels.Matrix
	Question *kernels.Matrix
}

// crossPooled marks the attackers whose stream carries a Pool.
type crossPooled interface{ crossPool() }

// CrossPool reports whether a is a cross-pool attacker: its stream must carry
// the run's Pool (Stream.Pool). Its margin is reported beside the
// within-benchmark variant's and enters no level's eps (docs/attackers.md,
// pool level).
func CrossPool(a Attacker) bool { _, ok := a.(crossPooled); return ok }

// CrossPoolSuffix ends the name of every cross-pool attacker.
const CrossPoolSuffix = "-xpool"

// otherRows lists the rows of p whose item is not of benchmark b, and
// copies them out of m.
func otherRows(p *Pool, m *kernels.Matrix, b string) ([]int, *kernels.Matrix) {
	var rows []int
	for i, it := range p.Items {
		if it.Benchmark != b {
			rows = append(rows, i)
		}
	}
	return rows, subRows(m, rows)
}

// poolNorm returns the normalised option texts of the pool's items at rows.
func poolNorm(p *Pool, rows []int) [][]string {
	out := make([][]string, len(rows))
	for k, i := range rows {
		it := p.Items[i]
		out[k] = make([]string, len(it.Options))
		for j, o := range it.Options {
			out[k][j] = normText(o)
		}
	}
	return out
}

func checkPool(name string, p *Pool, m *kernels.Matrix) error {
	if p == nil || m == nil {
		return errNoPool(name)
	}
	if m.Rows != len(p.Items) {
		return errPoolRows(name, m.Rows, len(p.Items))
	}
	return nil
}

func (p *Pool) questionOrNil() *kernels.Matrix {
	if p == nil {
		return nil
	}
	return p.Question
}

func (p *Pool) textOrNil() *kernels.Matrix {
	if p == nil {
		return nil
	}
	return p.Text
}

func errNoPool(name string) error {
	return fmt.Errorf("%s: stream has no cross-pool store (Stream.Pool with its embeddings)", name)
}

func errPoolRows(name string, rows, items int) error {
	return fmt.Errorf("%s: %d pool embedding rows for %d pool items", name, rows, items)
}
