package release

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/models/letters"
)

// copyPairReader is an lm_reader that copies the nearest retrieved pair:
// it puts 0.8 on the item's option whose text is the first pair's gold,
// and ties every letter when there is no pair or no such option.
type copyPairReader struct{}

func (copyPairReader) Encode(p letters.Prompt) ([]int, error) { return make([]int, 1), nil }

func (copyPairReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for k, p := range ps {
		out[k] = make([]float64, p.Options)
		at := strings.LastIndex(p.Text, "Question: ")
		_, gold, ok := strings.Cut(p.Text[:at], "\nAnswer: ")
		gold, _, _ = strings.Cut(gold, "\n")
		for j := range p.Options {
			out[k][j] = math.Log(1 / float64(p.Options))
			if ok && strings.Contains(p.Text[at:], fmt.Sprintf("\n%c. %s\n", 'A'+j, gold[min(3, len(gold)):])) {
				for o := range out[k] {
					out[k][o] = math.Log(0.1)
				}
				out[k][j] = math.Log(0.8)
				break
			}
		}
	}
	return out, nil
}

// retrieval-reader learns from its pool, so with the run's lm_reader the
// red team runs it again on the selection as its own pool: an item is
// answered only where its twin (the same question and options, another
// clip) was selected too and answered before it in the scored order, and
// each selected pair gives at least one such item. A selection without
// twins gives it nothing to copy. Without Reader its screened verdicts
// are carried over.
func TestAttackTeamRerunsTheRetrievalReader(t *testing.T) {
	t.Parallel()
	var cs []Candidate
	for i := range 24 {
		pair := i / 2
		it := &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprint("v", i), Task: "t",
			Question: fmt.Sprintf("which tool does the person in scene %d pick up", pair),
			Options:  []string{fmt.Sprint("hammer ", pair), fmt.Sprint("saw ", pair), fmt.Sprint("drill ", pair)}, Answer: pair % 3}
		cs = append(cs, Candidate{Item: it, TemplateSize: 2, Template: pair,
			Verdicts: []Verdict{{Scored: true, Correct: true, Margin: 2, Solved: true, Significant: true}}})
	}
	p, err := NewPool([]Attacker{{Name: "retrieval-reader", Level: harness.LevelPool, Pooled: true}}, cs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := attack.DefaultConfig()
	team := &AttackTeam{Config: cfg, Seed: 7, Reader: copyPairReader{}}
	twins := make([]int, 24)
	for i := range twins {
		twins[i] = i
	}
	att, err := team.Attack(context.Background(), p, twins)
	if err != nil {
		t.Fatal(err)
	}
	r := att.Attackers[0]
	if !r.Rerun || r.N != 24 || r.Solved+r.Ignored < 12 || !r.Significant {
		t.Errorf("twins selected: %+v; want re-run on 24 items, at least one solved per pair, significant", r)
	}
	alone := make([]int, 12) // one item of each pair
	for i := range alone {
		alone[i] = 2 * i
	}
	if att, err = team.Attack(context.Background(), p, alone); err != nil {
		t.Fatal(err)
	}
	if r := att.Attackers[0]; !r.Rerun || r.N != 12 || r.Solved+r.Ignored != 0 {
		t.Errorf("no twins selected: %+v; want re-run, nothing to copy", r)
	}
	team.Reader = nil
	if att, err = team.Attack(context.Background(), p, twins); err != nil {
		t.Fatal(err)
	}
	if r := att.Attackers[0]; r.Rerun || r.Solved != 24 {
		t.Errorf("without Reader: %+v; want carried over, all 24 solved", r)
	}
}
