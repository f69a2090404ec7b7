package ordered

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunDeliversInOrder(t *testing.T) {
	for _, tc := range []struct{ n, workers, window int }{
		{0, 1, 1}, {1, 1, 1}, {10, 1, 1}, {100, 4, 8}, {100, 8, 2}, {7, 0, 0},
	} {
		t.Run(fmt.Sprintf("n%d_w%d_win%d", tc.n, tc.workers, tc.window), func(t *testing.T) {
			var opened, shut atomic.Int32
			var got []int
			err := Run(context.Background(), tc.n, tc.workers, tc.window,
				func() (*int, error) { opened.Add(1); return new(int), nil },
				func(*int) error { shut.Add(1); return nil },
				func(s *int, i int) (int, error) {
					*s++ // per-worker state: never shared between goroutines
					if i%3 == 0 {
						time.Sleep(time.Millisecond) // finish out of order
					}
					return i * i, nil
				},
				func(i, r int) error {
					if r != i*i {
						return fmt.Errorf("result %d for job %d", r, i)
					}
					got = append(got, i)
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("sink saw %d results, want %d", len(got), tc.n)
			}
			for k, i := range got {
				if i != k {
					t.Fatalf("result %d delivered at position %d", i, k)
				}
			}
			if opened.Load() != shut.Load() {
				t.Errorf("opened %d worker states, shut %d", opened.Load(), shut.Load())
			}
		})
	}
}

func TestRunStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		open func() (int, error)
		shut func(int) error
		job  func(int, int) (int, error)
		sink func(int, int) error
	}{
		{"open", func() (int, error) { return 0, boom }, nil, func(_, i int) (int, error) { return i, nil }, func(int, int) error { return nil }},
		{"shut", nil, func(int) error { return boom }, func(_, i int) (int, error) { return i, nil }, func(int, int) error { return nil }},
		{"job", nil, nil, func(_, i int) (int, error) {
			if i == 5 {
				return 0, boom
			}
			return i, nil
		}, func(int, int) error { return nil }},
		{"sink", nil, nil, func(_, i int) (int, error) { return i, nil }, func(i, _ int) error {
			if i == 5 {
				return boom
			}
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := Run(context.Background(), 50, 3, 6, tc.open, tc.shut, tc.job, tc.sink); !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
		})
	}
}

func TestRunHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var seen int
	err := Run(ctx, 1000, 2, 4, nil, nil,
		func(_ struct{}, i int) (int, error) { return i, nil },
		func(i, _ int) error {
			if seen++; seen == 10 {
				cancel()
			}
			return nil
		})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if seen >= 1000 {
		t.Fatalf("the sink saw all %d results after cancel", seen)
	}
}
