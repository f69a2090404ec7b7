package kernels

import (
	"context"
	"sync"
)

// parallelFor runs body(i) for i in [0, n) on at most threads goroutines,
// handing out indices in increasing order. The first error (or ctx's) stops
// the hand-out and is returned once every running body has finished.
func parallelFor(ctx context.Context, n, threads int, body func(i int) error) error {
	if threads > n {
		threads = n
	}
	if threads < 1 {
		threads = 1
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || next >= n {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			first = err
			return 0, false
		}
		i := next
		next++
		return i, true
	}
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := body(i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// ordered runs job(i) for i in [0, n) on at most threads goroutines and
// passes each result to sink in increasing i, from the calling goroutine.
// At most window results wait for the sink at once, which bounds memory. The
// first error from a job, the sink or ctx stops everything and is returned.
func ordered[T any](ctx context.Context, n, threads, window int, job func(i int) (T, error), sink func(i int, r T) error) error {
	if n == 0 {
		return ctx.Err()
	}
	if threads < 1 {
		threads = 1
	}
	if window < threads {
		window = threads
	}
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
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				r, err := job(i)
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
		first = ctx.Err()
		if first == nil {
			first = context.Canceled
		}
	}
	return first
}
