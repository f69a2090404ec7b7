package screen_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/models/letters"
)

// firstReader is an lm_reader that favours the option listed first by 3
// nats: right exactly when the gold is listed first, confidently.
type firstReader struct{}

func (firstReader) Encode(p letters.Prompt) ([]int, error) {
	if p.Options < 2 {
		return nil, errors.New("no options")
	}
	return make([]int, len(p.Text)), nil
}

func (firstReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for i, p := range ps {
		out[i] = make([]float64, p.Options)
		out[i][0] = 3
		z := 0.0
		for _, v := range out[i] {
			z += math.Exp(v)
		}
		for j := range out[i] {
			out[i][j] -= math.Log(z)
		}
	}
	return out, nil
}

// One rule everywhere (issue 20.1): on a real audit with a model reader,
// the items screening finds the options-only and blind readers solve (four
// seeded orders of the permutation audit, three right, mean margin above
// log 2) are exactly those the cards count in solved_share and
// items.parquet marks <name>_solved.
func TestCardsAndScreeningSolveAlike(t *testing.T) {
	t.Parallel()
	b, err := demo.Head(30)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	items := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(items, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	res, err := run.Audit(context.Background(), run.Options{Items: []string{items}, Out: out, Seed: 3,
		Levels: []harness.Level{harness.LevelOption, harness.LevelText}, Reader: firstReader{}, ReaderName: "first"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := screen.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := screen.Compute(in, screen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		Options bool `parquet:"options_reader_solved"`
		Blind   bool `parquet:"blind_reader_solved"`
	}
	cells, err := parquet.ReadFile[cell](filepath.Join(out, "items.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != len(s.Rows) {
		t.Fatalf("%d rows in items.parquet, %d screened", len(cells), len(s.Rows))
	}
	count := map[string]map[string]int{"options-reader": {}, "blind-reader": {}}
	total := 0
	for i, r := range s.Rows {
		for name, parq := range map[string]bool{"options-reader": cells[i].Options, "blind-reader": cells[i].Blind} {
			v := r.Verdict(name)
			if v.Orders != 4 {
				t.Fatalf("%s %s: judged on %d orders, want 4", r.ID, name, v.Orders)
			}
			if v.Solved != parq {
				t.Errorf("%s/%s %s: screening solved %v, items.parquet %v", r.Benchmark, r.ID, name, v.Solved, parq)
			}
			if v.Solved {
				count[name][r.Benchmark]++
				total++
			}
		}
	}
	if total == 0 {
		t.Fatal("no item solved: the test shows nothing")
	}
	for _, c := range res.Cards {
		for _, a := range c.Attackers {
			if m, ok := count[a.Name]; ok {
				if got := int(math.Round(a.SolvedShare * float64(c.N))); got != m[c.Benchmark] || a.SolvedOrders != 4 {
					t.Errorf("%s: %s's card solves %d of %d over %d orders, screening %d", c.Benchmark, a.Name, got, c.N, a.SolvedOrders, m[c.Benchmark])
				}
			}
		}
	}
}
