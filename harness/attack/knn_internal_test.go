package attack

import (
	"context"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/kernels"
)

// bruteEarlier is the definition the k-NN vote must meet: the k items of
// the store answered before store[q] with the largest cosine, ties to the
// earlier position.
func bruteEarlier(m *kernels.Matrix, store []int, q, k int) []earlier {
	var out []earlier
	x := m.Row(store[q])
	for _, r := range store[:q] {
		out = append(out, earlier{r, float32(dot64(x, m.Row(r)))})
	}
	slices.SortFunc(out, byEarlierSim)
	return out[:min(k, len(out))]
}

// TestCandidateListsGiveTheExactNearestEarlierItems compares the list path
// of the k-NN vote (candidate lists searched once for all orders, with the
// fallback) with a brute-force search, on every item past the prefix of
// several orders, on STAR (whose verbatim repeats make many ties) or, without
// the development data, on a small templated pool.
func TestCandidateListsGiveTheExactNearestEarlierItems(t *testing.T) {
	t.Parallel()
	items := starOrSynthetic(t)
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = textembed.ItemText(it)
	}
	lex := textembed.NewLexical(0)
	lex.Fit(texts)
	m, err := lex.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	a := &knnVote{cfg: DefaultConfig(), cache: NewCache()}
	const k = 8
	fallbacks := 0
	for o, order := range Orders(items, 5, 3) {
		s := &Stream{Variant: o, Items: make([]*harness.Item, len(order)), Text: kernels.NewMatrix(len(order), m.Cols)}
		for p, i := range order {
			s.Items[p] = items[i]
			copy(s.Text.Row(p), m.Row(int(i)))
		}
		idx, err := a.cache.knnIndex.get(context.Background(), s, s.Text, topSearch{candidateDepth * k, kernels.Options{}})
		if err != nil {
			t.Fatal(err)
		}
		pos := positions(s)
		for _, store := range benchmarkStores(s) {
			// The prefix comes from the kernel: same cosines as brute force.
			nb, err := kernels.TopKEarlier(context.Background(), subRows(s.Text, store), k, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for q := range store {
				_, sims := nb.Row(q)
				want := bruteEarlier(s.Text, store, q, k)
				for r, w := range want {
					if sims[r] != w.sim {
						t.Fatalf("order %d, position %d: kernel cosine %v at rank %d, brute force %v", o, store[q], sims[r], r, w.sim)
					}
				}
			}
			for q := range store {
				want := bruteEarlier(s.Text, store, q, k)
				got := fromList(idx, s, s.Text, pos, store, q, k, nil)
				if !slices.Equal(got, want) {
					t.Fatalf("order %d, position %d: lists give %v, brute force %v", o, store[q], got, want)
				}
				key := s.Items[store[q]].Key()
				if l := idx.lists[key]; idx.truncated[key] && len(l) > 0 {
					n := 0
					for _, c := range l {
						if pos[c.key] < store[q] {
							n++
						}
					}
					if n < k {
						fallbacks++
					}
				}
			}
		}
	}
	t.Logf("%d items, 3 orders: %d searches fell back for lack of earlier candidates", len(items), fallbacks)
}

func starOrSynthetic(t *testing.T) []*harness.Item {
	path, err := shareddata.Lookup("star.jsonl")
	if err == nil {
		items, err := harness.ReadFiles(context.Background(), []string{path}, harness.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return items[:1500]
	}
	t.Logf("%v: using a synthetic pool", err)
	var items []*harness.Item
	verbs := []string{"opened", "closed", "took", "put down", "tidied up"}
	objects := []string{"The door.", "The box.", "The towel.", "The bag.", "The book."}
	for i := 0; i < 1500; i++ {
		opts := []string{objects[i%5], objects[(i+1)%5], objects[(i+2)%5], objects[(i+3)%5]}
		items = append(items, &harness.Item{ID: string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)),
			Benchmark: "S", Video: "v", Question: "Which object was " + verbs[i%len(verbs)] + " by the person?", Options: opts, Answer: i % 4})
	}
	return items
}
