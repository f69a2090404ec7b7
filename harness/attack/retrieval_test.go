package attack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/kernels"
	"github.com/vidscreen/vidscreen/models/letters"
)

// pairReader is an lm_reader that copies the nearest retrieved pair: it
// finds the first "Answer: X. text" line of the prompt (the nearest pair's
// gold) and puts 0.8 on the item's option of that text; with no pair, or
// no option of that text, every letter ties and the attacker abstains. It
// records each prompt by the question asked (the prompt's last question).
type pairReader struct {
	mu      sync.Mutex
	prompts map[string][]string
}

func (r *pairReader) Encode(p letters.Prompt) ([]int, error) {
	return make([]int, len(p.Text)), nil
}

func (r *pairReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	out := make([][]float64, len(ps))
	for k, p := range ps {
		at := strings.LastIndex(p.Text, "Question: ")
		asked, _, _ := strings.Cut(p.Text[at+len("Question: "):], "\n")
		r.mu.Lock()
		if r.prompts == nil {
			r.prompts = map[string][]string{}
		}
		r.prompts[asked] = append(r.prompts[asked], p.Text)
		r.mu.Unlock()
		out[k] = make([]float64, p.Options)
		for j := range out[k] {
			out[k][j] = math.Log(1 / float64(p.Options))
		}
		_, gold, ok := strings.Cut(p.Text[:at], "\nAnswer: ")
		if !ok {
			continue
		}
		gold, _, _ = strings.Cut(gold, "\n")
		gold = gold[3:] // drop "X. "
		for j := range p.Options {
			if strings.Contains(p.Text[at:], fmt.Sprintf("\n%c. %s\n", 'A'+j, gold)) {
				for o := range out[k] {
					out[k][o] = math.Log(0.2 / float64(p.Options-1))
				}
				out[k][j] = math.Log(0.8)
			}
		}
	}
	return out, nil
}

func retrievalConfig(r attack.LetterReader, crossPool bool) attack.Config {
	cfg := attack.DefaultConfig()
	cfg.Roles = []string{attack.RoleLMReader}
	cfg.Reader = r
	cfg.CrossPool = crossPool
	return cfg
}

func rowsOf(vs ...[]float32) *kernels.Matrix {
	m := kernels.NewMatrix(len(vs), len(vs[0]))
	for i, v := range vs {
		copy(m.Row(i), v)
	}
	return m
}

// The retrieval reader by hand. Benchmark B holds x1 and x2, asked the
// same way (question embedding e1) with options in other orders, gold
// "dog" in both, and y, asked otherwise (e2). In the order x1, y, x2: x1
// comes first and reads no pair (its prompt is the blind reader's), so it
// abstains; y reads x1, whose gold is none of its options, and abstains;
// x2 reads x1 then y, nearest first, and copies x1's "dog" (option A). In
// the order y, x2, x1 the neighbour is absent when x2 is asked and x2
// abstains, while x1 now reads x2. The cross-pool variant also reads A's
// a1 (e1, gold "dog"), answered before B starts: x1 then answers "dog" as
// the first item of B, and never reads x2, later in its own benchmark; a
// tie in cosine (y against a1 and x1) goes to a1, in the store first.
func TestRetrievalReaderByHand(t *testing.T) {
	t.Parallel()
	e1, e2 := []float32{1, 0}, []float32{0, 1}
	mk := func(b, q string, opts []string, answer int) *harness.Item {
		return &harness.Item{ID: q, Benchmark: b, Question: q, Options: opts, Answer: answer}
	}
	x1 := mk("B", "which pet sat down first", []string{"cat", "dog"}, 1)
	y := mk("B", "what colour is the car", []string{"red", "blue"}, 0)
	x2 := mk("B", "which pet sat down second", []string{"dog", "cat"}, 0)
	a1 := mk("A", "which pet sat down", []string{"dog", "bird"}, 0)
	emb := map[*harness.Item][]float32{x1: e1, y: e2, x2: e1, a1: e1}
	stream := func(items ...*harness.Item) *attack.Stream {
		vs := make([][]float32, len(items))
		for i, it := range items {
			vs[i] = emb[it]
		}
		pool := &attack.Pool{Items: []*harness.Item{a1, x1, y, x2}, Question: rowsOf(e1, e1, e2, e1), Text: rowsOf(e1, e1, e2, e1)}
		return &attack.Stream{Seed: 2, Items: items, Question: rowsOf(vs...), Text: rowsOf(vs...), Pool: pool}
	}
	type want struct {
		abstain bool
		choice  int
		pairs   []string // the questions of the pairs read, nearest first
	}
	for _, tt := range []struct {
		name, attacker string
		items          []*harness.Item
		want           []want
	}{
		{"x2 after its neighbour", "retrieval-reader", []*harness.Item{x1, y, x2},
			[]want{{abstain: true}, {abstain: true, pairs: []string{x1.Question}}, {choice: 0, pairs: []string{x1.Question, y.Question}}}},
		{"x2 before its neighbour", "retrieval-reader", []*harness.Item{y, x2, x1},
			[]want{{abstain: true}, {abstain: true, pairs: []string{y.Question}}, {choice: 1, pairs: []string{x2.Question, y.Question}}}},
		{"cross-pool store", "retrieval-reader-xpool", []*harness.Item{x1, y, x2},
			[]want{{choice: 1, pairs: []string{a1.Question}}, {abstain: true, pairs: []string{a1.Question, x1.Question}},
				{choice: 0, pairs: []string{a1.Question, x1.Question, y.Question}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &pairReader{}
			a := frameAttacker(t, retrievalConfig(r, true), tt.attacker)
			if !attack.Prequential(a) || !attack.NeedsQuestion(a) || !attack.ScoresLetters(a) || attack.CrossPool(a) != strings.HasSuffix(tt.attacker, attack.CrossPoolSuffix) {
				t.Fatalf("%s: prequential %v, question %v, letters %v, cross-pool %v", tt.attacker, attack.Prequential(a), attack.NeedsQuestion(a), attack.ScoresLetters(a), attack.CrossPool(a))
			}
			if a.Level() != harness.LevelPool {
				t.Fatalf("%s is at level %v, want pool", tt.attacker, a.Level())
			}
			preds, err := a.Attack(context.Background(), stream(tt.items...))
			if err != nil {
				t.Fatal(err)
			}
			for p, w := range tt.want {
				it := tt.items[p]
				got := preds[p]
				if got.Abstain != w.abstain || (!w.abstain && got.Choice != w.choice) {
					t.Errorf("%s: %+v, want abstain %v choice %d", it.Question, got, w.abstain, w.choice)
				}
				prompts := r.prompts[it.Question]
				if len(prompts) != 1 {
					t.Fatalf("%s: %d prompts, want 1", it.Question, len(prompts))
				}
				if gotPairs := pairQuestions(prompts[0], it.Question); !slices.Equal(gotPairs, w.pairs) {
					t.Errorf("%s read the pairs %q, want %q", it.Question, gotPairs, w.pairs)
				}
			}
		})
	}
}

// pairQuestions lists the questions of a retrieval prompt's pairs, in the
// order written, and checks that each pair shows its gold.
func pairQuestions(prompt, asked string) []string {
	var out []string
	for _, l := range strings.Split(prompt, "\n") {
		if q, ok := strings.CutPrefix(l, "Question: "); ok && q != asked {
			out = append(out, q)
		}
	}
	return out
}

// retrievalPool is a pool of three benchmarks with templated questions
// whose question embeddings fall in a few tight clusters, for the search's
// candidate lists and their exact fallback to be exercised.
func retrievalPool(n int) ([]*harness.Item, *kernels.Matrix) {
	r := rand.New(rand.NewPCG(11, 3))
	const dim = 16
	centres := make([][]float64, 12)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for d := range centres[c] {
			centres[c][d] = r.NormFloat64()
		}
	}
	items := make([]*harness.Item, n)
	q := kernels.NewMatrix(n, dim)
	for i := range items {
		c := r.IntN(len(centres))
		items[i] = &harness.Item{ID: fmt.Sprint(i), Benchmark: fmt.Sprint("B", i%3), Question: fmt.Sprintf("question %d of kind %d", i, c),
			Options: []string{fmt.Sprint("kind ", c), fmt.Sprint("kind ", (c+1)%12), fmt.Sprint("kind ", (c+2)%12)}, Answer: r.IntN(3)}
		row := q.Row(i)
		var norm float64
		for d := range row {
			v := centres[c][d] + 0.3*r.NormFloat64()
			row[d] = float32(v)
			norm += v * v
		}
		for d := range row {
			row[d] /= float32(math.Sqrt(norm))
		}
	}
	return items, q
}

// Each item reads exactly the 8 nearest items of its benchmark answered
// before it (an exact search in float64, ties to the earlier), nearest
// first, with their gold answers; an item's own gold and a later item's
// never appear (flipping the golds from position i on leaves every answer
// before i and every prompt up to i as it was); and the answers, on every
// order, are the same bytes at 1 and 4 kernel threads with 1 or 4 orders
// attacked at once.
func TestRetrievalReaderPrequentialAndDeterministic(t *testing.T) {
	t.Parallel()
	items, q := retrievalPool(600)
	orders := attack.Orders(items, 5, 4)
	run := func(threads, workers int, items []*harness.Item) ([][]attack.Prediction, *pairReader) {
		r := &pairReader{}
		cfg := retrievalConfig(r, false)
		cfg.Threads = threads
		a := frameAttacker(t, cfg, "retrieval-reader")
		out := make([][]attack.Prediction, len(orders))
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		errs := make([]error, len(orders))
		for o, order := range orders {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				s := &attack.Stream{Variant: o, Seed: attack.OrderSeed(5, o), Items: make([]*harness.Item, len(order)), Question: kernels.NewMatrix(len(order), q.Cols)}
				for p, i := range order {
					s.Items[p] = items[i]
					copy(s.Question.Row(p), q.Row(int(i)))
				}
				out[o], errs[o] = a.Attack(context.Background(), s)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out, r
	}
	one, r := run(1, 1, items)
	four, _ := run(4, 4, items)
	b1, _ := json.Marshal(one)
	b4, _ := json.Marshal(four)
	if string(b1) != string(b4) {
		t.Fatal("the answers differ between 1 thread, 1 order at a time and 4 threads, 4 orders at once")
	}
	// The pairs of order 0, against an exact search.
	order := orders[0]
	copied := 0
	for p, i := range order {
		it := items[i]
		var near []int
		for e := range p {
			j := order[e]
			if items[j].Benchmark == it.Benchmark {
				near = append(near, e)
			}
		}
		sim := func(e int) float64 {
			var s float64
			for d := range q.Cols {
				s += float64(q.Row(int(i))[d]) * float64(q.Row(int(order[e]))[d])
			}
			return float64(float32(s))
		}
		slices.SortStableFunc(near, func(x, y int) int {
			if sx, sy := sim(x), sim(y); sx != sy {
				if sx > sy {
					return -1
				}
				return 1
			}
			return x - y
		})
		want := []string{}
		for _, e := range near[:min(8, len(near))] {
			want = append(want, items[order[e]].Question)
		}
		prompts := r.prompts[it.Question]
		got := pairQuestions(prompts[0], it.Question)
		if got == nil {
			got = []string{}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("position %d (%s) read %q, want the 8 nearest earlier %q", p, it.Question, got, want)
		}
		if !one[0][p].Abstain {
			copied++
		}
	}
	if copied < len(order)/2 {
		t.Errorf("only %d of %d items answered from their pairs: the pool shows nothing", copied, len(order))
	}
	// Flip the golds from position cut of order 0 on: nothing before it
	// changes.
	const cut = 300
	flipped := make([]*harness.Item, len(items))
	copy(flipped, items)
	for _, i := range order[cut:] {
		c := *items[i]
		c.Answer = (c.Answer + 1) % len(c.Options)
		flipped[i] = &c
	}
	again, _ := run(1, 1, flipped)
	for p := range cut + 1 {
		if a, b := one[0][p], again[0][p]; a.Choice != b.Choice || a.Abstain != b.Abstain || !slices.Equal(a.Scores, b.Scores) {
			t.Fatalf("position %d changed when the golds from %d on were flipped: %+v -> %+v", p, cut, a, b)
		}
	}
}
