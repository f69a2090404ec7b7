package attack_test

import (
	"context"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/kernels"
)

// TestABenchmarkAloneGetsThePoolsAnswers is what lets a run answer the
// attackers that read embeddings one benchmark at a time (harness/run):
// every attacker, given the stream of one benchmark's items (in the same
// relative order, with their rows), answers each of them exactly as it
// does in the stream of the whole pool.
func TestABenchmarkAloneGetsThePoolsAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	items := syntheticItems(300, 4)
	// A third benchmark whose questions repeat the others' word for word,
	// so that a search across benchmarks would find neighbours there.
	for i, it := range items[:60] {
		c := *it
		c.ID, c.Benchmark = "copy/"+it.ID, "Copies"
		if i%2 == 0 {
			c.Answer = (c.Answer + 1) % len(c.Options)
		}
		items = append(items, &c)
	}
	text, question := embedOrFail(t, items)
	const variant = 1
	order := attack.Orders(items, 3, variant+1)[variant]
	stream := func(keep func(*harness.Item) bool) (*attack.Stream, []int32) {
		var sel []int32
		for _, i := range order {
			if keep(items[i]) {
				sel = append(sel, i)
			}
		}
		s := &attack.Stream{Variant: variant, Seed: attack.OrderSeed(3, variant), Items: make([]*harness.Item, len(sel)),
			Text: kernels.NewMatrix(len(sel), text.Cols), Question: kernels.NewMatrix(len(sel), question.Cols)}
		for p, i := range sel {
			s.Items[p] = items[i]
			copy(s.Text.Row(p), text.Row(int(i)))
			copy(s.Question.Row(p), question.Row(int(i)))
		}
		return s, sel
	}
	for _, proto := range attack.Attackers(attack.DefaultConfig()) {
		t.Run(proto.Name(), func(t *testing.T) {
			fresh := func() attack.Attacker { return attackerNamed(t, proto.Name()) }
			all, allSel := stream(func(*harness.Item) bool { return true })
			want, err := fresh().Attack(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			byItem := map[int32]attack.Prediction{}
			for p, i := range allSel {
				byItem[i] = want[p]
			}
			for _, b := range []string{"Copies", "Pairs", "Templates"} {
				s, sel := stream(func(it *harness.Item) bool { return it.Benchmark == b })
				got, err := fresh().Attack(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				for p, i := range sel {
					if !samePrediction(got[p], byItem[i]) {
						t.Fatalf("%s, item %s: alone %+v, in the pool %+v", b, items[i].ID, got[p], byItem[i])
					}
				}
			}
		})
	}
}
