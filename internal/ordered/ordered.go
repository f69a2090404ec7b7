// Package ordered runs independent jobs on a pool of goroutines and hands
// their results on in job order, so a parallel stage writes the same bytes
// at any worker count.
package ordered

import (
	"context"
	"sync"
)

// Run runs job(s, i) for i in [0, n) on workers goroutines and passes each
// result to sink in increasing i, from the calling goroutine. Each worker
// first calls open for state of its own (a device stream, a scratch
// buffer) and calls shut on it when done; open and shut may be nil. At
// most window results wait for the sink at once, which bounds memory. The
// first error from open, a job, shut, the sink or ctx stops everything
// and is returned.
func Run[S, T any](ctx context.Context, n, workers, window int, open func() (S, error), shut func(S) error, job func(s S, i int) (T, error), sink func(i int, r T) error) error {
	if n == 0 {
		return ctx.Err()
	}
	workers = max(workers, 1)
	window = max(window, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i   int
		r   T
		err error
	}
	slots := make(chan struct{}, window) // a token per result in flight
	results := make(chan result, window)
	idx := make(chan int)
	go func() {
		defer close(idx)
		for i := 0; i < n; i++ {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case idx <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s S
			if open != nil {
				var err error
				if s, err = open(); err != nil {
					results <- result{-1, *new(T), err}
					return
				}
			}
			if shut != nil {
				defer func() {
					if err := shut(s); err != nil {
						results <- result{-1, *new(T), err}
					}
				}()
			}
			for i := range idx {
				r, err := job(s, i)
				results <- result{i, r, err}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	pending := make(map[int]result)
	var first error
	want := 0
	for res := range results {
		if first != nil {
			continue // drain so the workers can exit
		}
		if res.err != nil {
			first = res.err
			cancel()
			continue
		}
		pending[res.i] = res
		for {
			r, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			if err := sink(want, r.r); err != nil {
				first = err
				cancel()
				break
			}
			<-slots
			want++
		}
	}
	if first == nil && want < n {
		if first = ctx.Err(); first == nil {
			first = context.Canceled
		}
	}
	return first
}
