package attack

import (
	"fmt"
	"math/rand/v2"

	"github.com/vidscreen/vidscreen/harness"
)

// OptionPermutations is how many seeded permutations of each item's options
// the option-permutation audit asks a model reader besides the original
// order.
const OptionPermutations = 8

// PermutationCount is the number of permutations the option-permutation
// audit scores under c: 0 when the audit is off.
func (c Config) PermutationCount() int {
	switch {
	case c.Permutations < 0:
		return 0
	case c.Permutations == 0:
		return OptionPermutations
	}
	return c.Permutations
}

// An optionsPrompter builds its prompt from the item's options at attack
// time, so that a permuted stream really asks its model again.
type optionsPrompter interface{ promptsOptions() }

func (*optionsReader) promptsOptions()  {}
func (*blindReader) promptsOptions()    {}
func (*captionsReader) promptsOptions() {}
func (*centreReader) promptsOptions()   {}
func (*shuffledReader) promptsOptions() {}
func (*tenthReader) promptsOptions()    {}

// PermutesOptions reports whether a is a model reader whose prompt lists the
// options, so the option-permutation audit can run it on permuted options.
// The VLM readers are among them: the feature stage scores their prompts
// on every permutation too (VLMSet and PermutedSet), and the audit hands
// them those scores with the permuted stream.
func PermutesOptions(a Attacker) bool {
	_, ok := a.(optionsPrompter)
	return ok
}

// MultiOrder reports whether the attacker named name is judged on several
// seeded option orders, the permutation audit's first four (Video-Index
// 5.1; the authors' pool/screen.py): the options-only and blind readers,
// and the blind reader on a later lm_reader entry (blind-reader#2).
// Screening's funnel and consensus and the cards' solved share judge the
// same attackers so.
func MultiOrder(name string) bool {
	base, _ := SplitModel(name)
	return base == "options-reader" || base == "blind-reader"
}

// A vlmSetReader reads vlm_reader's scores of one frame set.
type vlmSetReader interface{ vlmSet() string }

func (*centreReader) vlmSet() string   { return VLMCentre }
func (*shuffledReader) vlmSet() string { return VLMShuffled }
func (*tenthReader) vlmSet() string    { return VLMTenth }

// VLMSet returns the key of Visual.VLM that VLM reader a reads, or "" for
// any other attacker.
func VLMSet(a Attacker) string {
	if r, ok := a.(vlmSetReader); ok {
		return r.vlmSet()
	}
	return ""
}

// PermutedSet is the key of Visual.VLM holding the scores of set's prompts
// with the options in permutation k (OptionPermutation), in that order; k
// = 0 is set itself.
func PermutedSet(set string, k int) string {
	if k == 0 {
		return set
	}
	return fmt.Sprintf("%s#p%d", set, k)
}

// OptionPermutation is the k-th seeded permutation of it's options (k = 0:
// the identity): option j of the permuted item is option perm[j] of the
// original. It is drawn from seed, the item's key and k alone.
func OptionPermutation(seed uint64, it *harness.Item, k int) []int {
	n := len(it.Options)
	if k == 0 {
		perm := make([]int, n)
		for j := range perm {
			perm[j] = j
		}
		return perm
	}
	return rand.New(rand.NewPCG(keyHash(seed, it.Key()), uint64(k))).Perm(n)
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
		perm := OptionPermutation(seed, it, k)
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

// An askedReader is an lm_reader attacker that honours Stream.Ask, so a
// shard of a split audit can run it on the whole stream and ask its model
// about the shard's own items only.
type askedReader interface{ honoursAsk() }

func (*optionsReader) honoursAsk()    {}
func (*blindReader) honoursAsk()      {}
func (*retrievalReader) honoursAsk()  {}
func (*retrievalXPool) honoursAsk()   {}
func (*captionsReader) honoursAsk()   {}
func (*transcriptReader) honoursAsk() {}

// HonoursAsk reports whether a is an lm_reader attacker that honours
// Stream.Ask (the options-only, blind, retrieval, captions and transcript
// readers): the model readers a shard of a split audit runs on its own
// items.
func HonoursAsk(a Attacker) bool {
	_, ok := a.(askedReader)
	return ok
}
