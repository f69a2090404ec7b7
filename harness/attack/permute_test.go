package attack_test

import (
	"context"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

// TestPermuteOptions: order 0 is the original; every other order is a
// permutation of each item's options, seeded by the item's key (the same on
// every call), with the gold answer moved along, and the stream given is
// left as it was.
func TestPermuteOptions(t *testing.T) {
	t.Parallel()
	items := []*harness.Item{
		{ID: "1", Benchmark: "B", Question: "q", Options: []string{"a", "b", "c", "d", "e"}, Answer: 3},
		{ID: "2", Benchmark: "B", Question: "q", Options: []string{"x", "y"}, Answer: 0},
	}
	s := &attack.Stream{Seed: 1, Items: items}
	s0, from0 := attack.PermuteOptions(s, 9, 0)
	for p, it := range s0.Items {
		if !slices.Equal(it.Options, items[p].Options) || it.Answer != items[p].Answer || !slices.Equal(from0[p], []int{0, 1, 2, 3, 4}[:len(it.Options)]) {
			t.Errorf("order 0 of item %d: %v answer %d from %v; want the original", p, it.Options, it.Answer, from0[p])
		}
	}
	moved := false
	for k := 1; k <= attack.OptionPermutations; k++ {
		sk, from := attack.PermuteOptions(s, 9, k)
		again, _ := attack.PermuteOptions(s, 9, k)
		for p, it := range sk.Items {
			orig := items[p]
			if it.Options[it.Answer] != orig.Options[orig.Answer] {
				t.Errorf("order %d item %d: gold %q, want %q", k, p, it.Options[it.Answer], orig.Options[orig.Answer])
			}
			for j, o := range from[p] {
				if it.Options[j] != orig.Options[o] {
					t.Errorf("order %d item %d: option %d is %q, from says %q", k, p, j, it.Options[j], orig.Options[o])
				}
			}
			if sorted := slices.Sorted(slices.Values(it.Options)); !slices.Equal(sorted, orig.Options) {
				t.Errorf("order %d item %d: %v is not a permutation of %v", k, p, it.Options, orig.Options)
			}
			if !slices.Equal(again.Items[p].Options, it.Options) {
				t.Errorf("order %d item %d: another call drew %v, then %v", k, p, again.Items[p].Options, it.Options)
			}
			moved = moved || !slices.Equal(it.Options, orig.Options)
		}
	}
	if !moved {
		t.Error("no permutation moved any option")
	}
	if !slices.Equal(items[0].Options, []string{"a", "b", "c", "d", "e"}) || items[0].Answer != 3 {
		t.Errorf("the original item changed: %+v", items[0])
	}
}

// TestPermutationFollowsTheReadersPrompt: the fake reader favours the
// option its prompt's first line names. The blind prompt starts with the
// question, which names "b": under every permutation the blind reader picks
// the letter now showing "b", so the chosen text never changes. Only the
// readers that build their prompt from the options are permuted, the VLM
// readers included.
func TestPermutationFollowsTheReadersPrompt(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "1", Benchmark: "B", Question: "is it b", Options: []string{"a", "b", "c", "d"}, Answer: 1}
	cfg := readerConfig(&fakeReader{})
	cfg.Roles = append(cfg.Roles, attack.RoleVLMReader)
	var blind attack.Attacker
	for _, a := range attack.Attackers(cfg) {
		want := a.Name() == "options-reader" || a.Name() == "blind-reader" || a.Name() == "captions-reader" ||
			attack.VLMSet(a) != ""
		if attack.PermutesOptions(a) != want {
			t.Errorf("PermutesOptions(%s) = %v, want %v", a.Name(), !want, want)
		}
		if a.Name() == "blind-reader" {
			blind = a
		}
	}
	s := &attack.Stream{Seed: 1, Items: []*harness.Item{it}}
	for k := 0; k <= attack.OptionPermutations; k++ {
		sk, from := attack.PermuteOptions(s, 3, k)
		preds, err := blind.Attack(context.Background(), sk)
		if err != nil {
			t.Fatal(err)
		}
		if got := it.Options[from[0][preds[0].Choice]]; got != "b" || preds[0].Choice != sk.Items[0].Answer {
			t.Errorf("order %d (options %v): chose %q, want b", k, sk.Items[0].Options, got)
		}
	}
}
