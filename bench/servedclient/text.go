package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"sync/atomic"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/served"
	"golang.org/x/sync/errgroup"
)

// readerChunk is attack's readerChunk: the prompts one reader call holds.
const readerChunk = 64

// textRun says what runText asks.
type textRun struct {
	urls        []string
	model       string
	items       []item
	orders      int
	benchmark   int // items per unit (a benchmark's share of one order)
	workers     int // units at once (the audit's --workers)
	concurrency int // server_concurrency per server
	store       *served.Store
	// replicas asks through one served.Letters over every server (the
	// manifest's servers field: the client spreads the requests itself)
	// instead of one reader per server and the driver's spread of calls.
	replicas bool
}

// textResult is what runText did.
type textResult struct {
	Prompts  int64  `json:"prompts"`
	Failed   int64  `json:"failed"`
	Checksum string `json:"checksum"`
}

// spread hands each reader call to the server with the fewest calls
// outstanding (ties: the first), as the replicas contract spreads a role's
// requests (least outstanding).
type spread struct {
	mu          sync.Mutex
	readers     []*served.Letters
	outstanding []int
}

func (s *spread) pick() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := 0
	for i, n := range s.outstanding {
		if n < s.outstanding[best] {
			best = i
		}
	}
	s.outstanding[best]++
	return best
}

func (s *spread) release(i int) {
	s.mu.Lock()
	s.outstanding[i]--
	s.mu.Unlock()
}

// runText asks the options-only and blind readers' prompts of every item
// in every order, as the attack stage does: units of one reader, one order
// and one benchmark's items, run workers at a time, each scoring its
// prompts 64 at a time through served.Letters (the audit's lm_reader).
func runText(ctx context.Context, r textRun) (textResult, error) {
	groups := [][]string{r.urls}
	if !r.replicas {
		groups = nil
		for _, u := range r.urls {
			groups = append(groups, []string{u})
		}
	}
	sp := &spread{outstanding: make([]int, len(groups))}
	for i, urls := range groups {
		l, err := served.NewLetters(served.Config{Role: "lm_reader", Store: r.store, URLs: urls,
			Server: models.ServerSettings{URL: urls[0], Model: r.model, Concurrency: r.concurrency, Retries: models.DefaultServerRetries, Frames: models.ServerFramesImages}})
		if err != nil {
			return textResult{}, fmt.Errorf("reader %d: %w", i, err)
		}
		sp.readers = append(sp.readers, l)
	}
	type unit struct {
		blind  bool
		order  int
		lo, hi int
	}
	var units []unit
	for _, blind := range []bool{false, true} {
		for k := range r.orders {
			for lo := 0; lo < len(r.items); lo += r.benchmark {
				units = append(units, unit{blind, k, lo, min(lo+r.benchmark, len(r.items))})
			}
		}
	}
	// Each prompt's scores are folded into its own slot, so the checksum
	// does not depend on which server or worker answered.
	sums := make([]uint64, len(units))
	var prompts, failed atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(r.workers)
	for ui, u := range units {
		g.Go(func() error {
			h := fnv.New64a()
			for lo := u.lo; lo < u.hi; lo += readerChunk {
				hi := min(lo+readerChunk, u.hi)
				batch := make([]letters.Prompt, 0, hi-lo)
				for i := lo; i < hi; i++ {
					it := r.items[i]
					if os := orders(len(it.options), r.orders, 1, i); u.order < len(os) {
						batch = append(batch, prompt(it, u.blind, os[u.order]))
					}
				}
				s := sp.pick()
				rows, err := sp.readers[s].Score(ctx, batch)
				sp.release(s)
				if err != nil {
					return err
				}
				for _, row := range rows {
					prompts.Add(1)
					if row == nil {
						failed.Add(1)
						continue
					}
					for _, v := range row {
						var b [8]byte
						bits := math.Float64bits(v)
						for k := range b {
							b[k] = byte(bits >> (8 * k))
						}
						h.Write(b[:])
					}
				}
			}
			sums[ui] = h.Sum64()
			return nil
		})
	}
	if err := g.Wait(); err != nil && !errors.Is(err, context.Canceled) {
		return textResult{}, err
	}
	h := fnv.New64a()
	for _, s := range sums {
		fmt.Fprintf(h, "%016x", s)
	}
	return textResult{Prompts: prompts.Load(), Failed: failed.Load(), Checksum: fmt.Sprintf("%016x", h.Sum64())}, nil
}
