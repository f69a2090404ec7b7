package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/vidscreen/vidscreen/bench/servedsim/sim"
)

// TestTextRunSameAnswersOnOneOrTwoServers runs the text readers through
// models/served against one and against two test servers, spread by the
// driver and as replicas: every prompt is asked once, and the answers are
// the same.
func TestTextRunSameAnswersOnOneOrTwoServers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var urls []string
	for range 2 {
		tok, err := sim.NewTokenizer(sim.FamilyFixed, 1)
		if err != nil {
			t.Fatal(err)
		}
		eng := sim.NewEngine(sim.EngineConfig{PrefillRate: 1e9, CacheTokens: 1 << 16})
		go eng.Run(ctx)
		hs := httptest.NewServer(sim.NewServer("lm", eng, tok))
		defer hs.Close()
		urls = append(urls, hs.URL+"/v1")
	}
	items := makeItems(90, 4, 1)
	var sums []string
	for _, c := range []struct {
		n        int
		replicas bool
	}{{1, false}, {2, false}, {2, true}} {
		res, err := runText(ctx, textRun{urls: urls[:c.n], model: "lm", items: items, orders: 4, benchmark: 40, workers: 3, concurrency: 8, replicas: c.replicas})
		if err != nil {
			t.Fatal(err)
		}
		if res.Prompts != 90*2*4 || res.Failed != 0 {
			t.Errorf("%d servers (replicas %v): %d prompts, %d failed; want %d, 0", c.n, c.replicas, res.Prompts, res.Failed, 90*2*4)
		}
		sums = append(sums, res.Checksum)
	}
	for i, s := range sums[1:] {
		if s != sums[0] {
			t.Errorf("answers differ: %s on one server, %s on two (run %d)", sums[0], s, i+1)
		}
	}
}

func TestOrdersAreDistinctPermutations(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 4, 5} {
		os := orders(n, 4, 1, 7)
		want := min(4, map[int]int{2: 2, 4: 24, 5: 120}[n])
		if len(os) != want {
			t.Errorf("%d options: %d orders, want %d", n, len(os), want)
		}
		seen := map[string]bool{}
		for _, p := range os {
			k := string(rune(len(p)))
			for _, v := range p {
				k += string(rune('0' + v))
			}
			if seen[k] {
				t.Errorf("%d options: order %v twice", n, p)
			}
			seen[k] = true
		}
	}
}
