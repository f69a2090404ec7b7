package main

import (
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

// prompt is an item's prompt as the attackers make it (attack's
// letterPrompt): the options-only reader's or the blind reader's parts,
// the options in order perm.
func prompt(it item, withQuestion bool, perm []int) letters.Prompt {
	p := letters.Parts{Kind: letters.KindOptionsOnly, Options: make([]string, len(perm))}
	for j, o := range perm {
		p.Options[j] = it.options[o]
	}
	if withQuestion {
		p.Kind, p.Question = letters.KindBlind, it.question
	}
	return letters.New(p)
}
