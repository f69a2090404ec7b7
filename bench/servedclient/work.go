package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/models/letters"
)

// An item is a synthetic multiple-choice item: a question and its options,
// four to a video, of the lengths real pools have (a question of 8 to 20
// words, 4 or 5 options of 2 to 8 words: NExT-QA's and STAR's range).
type item struct {
	video    int
	question string
	options  []string
}

// words is the vocabulary the texts are drawn from.
var words = strings.Fields(`the a man woman child dog cat ball car table kitchen street room door window
person people hand head left right front behind after before while during why how what where who
pick put open close walk run sit stand look turn hold throw push pull talk laugh cry eat drink play
red blue green small large first last next video clip scene beginning end middle quickly slowly`)

// makeItems draws n items, perVideo to a video, from seed.
func makeItems(n, perVideo int, seed uint64) []item {
	rng := rand.New(rand.NewPCG(seed, 0x5e4ed))
	phrase := func(lo, hi int) string {
		k := lo + rng.IntN(hi-lo+1)
		ws := make([]string, k)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	items := make([]item, n)
	for i := range items {
		opts := make([]string, 4+rng.IntN(2))
		for j := range opts {
			opts[j] = phrase(2, 8)
		}
		items[i] = item{video: i / perVideo, question: phrase(8, 20) + "?", options: opts}
	}
	return items
}

// orders are the k seeded permutations of an item's n options the
// permutation audit shows it in: the identity first, then distinct
// shuffles (fewer when n! < k).
func orders(n, k int, seed uint64, i int) [][]int {
	id := make([]int, n)
	for j := range id {
		id[j] = j
	}
	out := [][]int{id}
	rng := rand.New(rand.NewPCG(seed^uint64(i), 0x0de5))
	for tries := 0; len(out) < k && tries < 64*k; tries++ {
		p := rng.Perm(n)
		if !slices.ContainsFunc(out, func(q []int) bool { return slices.Equal(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

// prompt writes an item as the attackers do (attack.letterPrompt): the
// question only for the blind reader, the lettered options in order k,
// then the answer cue.
func prompt(it item, withQuestion bool, perm []int) letters.Prompt {
	var b strings.Builder
	if withQuestion {
		fmt.Fprintf(&b, "Question: %s\n", it.question)
	}
	b.WriteString("Options:\n")
	for j, o := range perm {
		fmt.Fprintf(&b, "%c. %s\n", 'A'+j, it.options[o])
	}
	b.WriteString("Answer with the option's letter.\nAnswer:")
	return letters.Prompt{Text: b.String(), Options: len(it.options)}
}
