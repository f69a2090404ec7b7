package attack

import (
	"math/rand/v2"

	"github.com/vidscreen/vidscreen/harness"
)

// OptionPermutations is how many seeded permutations of each item's options
// the option-permutation audit asks a model reader besides the original
// order.
const OptionPermutations = 8

// An optionsPrompter builds its prompt from the item's options at attack
// time, so that a permuted stream really asks its model again.
type optionsPrompter interface{ promptsOptions() }

func (*optionsReader) promptsOptions()  {}
func (*blindReader) promptsOptions()    {}
func (*captionsReader) promptsOptions() {}

// PermutesOptions reports whether a is a model reader whose prompt lists the
// options, so the option-permutation audit can run it on permuted options.
// The VLM readers are not among them: their letter scores are made, with
// the original order, in the feature stage.
func PermutesOptions(a Attacker) bool {
	_, ok := a.(optionsPrompter)
	return ok
}

// PermuteOptions returns a copy of s whose items list their options in the
// k-th seeded permutation (k = 0: the original order), drawn per item from
// seed and the item's key, with the gold answer moved along; from[p][j] is
// the original index of option j of item p.
func PermuteOptions(s *Stream, seed uint64, k int) (*Stream, [][]int) {
	out := *s
	out.Items = make([]*harness.Item, len(s.Items))
	from := make([][]int, len(s.Items))
	for p, it := range s.Items {
		n := len(it.Options)
		perm := make([]int, n)
		for j := range perm {
			perm[j] = j
		}
		if k > 0 {
			perm = rand.New(rand.NewPCG(keyHash(seed, it.Key()), uint64(k))).Perm(n)
		}
		c := *it
		c.Options = make([]string, n)
		for j, o := range perm {
			c.Options[j] = it.Options[o]
			if o == it.Answer {
				c.Answer = j
			}
		}
		out.Items[p], from[p] = &c, perm
	}
	return &out, from
}
