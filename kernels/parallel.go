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
