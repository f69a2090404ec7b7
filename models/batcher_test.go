package models

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/models/letters"
)

func TestBatcherGathersAndReturnsInOrder(t *testing.T) {
	t.Parallel()
	var runs, maxSeen atomic.Int64
	run := func(_ context.Context, reqs []int) ([]string, error) {
		runs.Add(1)
		if n := int64(len(reqs)); n > maxSeen.Load() {
			maxSeen.Store(n)
		}
		out := make([]string, len(reqs))
		for i, r := range reqs {
			if r%10 != reqs[0]%10 {
				return nil, fmt.Errorf("keys %d and %d in one batch", reqs[0]%10, r%10)
			}
			out[i] = fmt.Sprint("r", r)
		}
		return out, nil
	}
	b := NewBatcher(BatchOptions{MaxBatch: 8, MaxWait: 5 * time.Millisecond}, func(r int) int { return r % 10 }, run)
	defer b.Close()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reqs := make([]int, 25)
			for i := range reqs {
				reqs[i] = g*1000 + i
			}
			res, errs := b.DoAll(context.Background(), reqs)
			for i := range reqs {
				if errs[i] != nil || res[i] != fmt.Sprint("r", reqs[i]) {
					t.Errorf("request %d: %q, %v", reqs[i], res[i], errs[i])
				}
			}
		}()
	}
	wg.Wait()
	if maxSeen.Load() > 8 {
		t.Fatalf("a batch of %d > MaxBatch 8", maxSeen.Load())
	}
	if runs.Load() >= 16*25 {
		t.Fatalf("%d runs for %d requests: nothing was batched", runs.Load(), 16*25)
	}
}

func TestBatcherErrorsAndCancellation(t *testing.T) {
	boom := errors.New("boom")
	release := make(chan struct{})
	run := func(_ context.Context, reqs []int) ([]int, error) {
		<-release
		if reqs[0] < 0 {
			return nil, boom
		}
		return reqs, nil
	}
	b := NewBatcher(BatchOptions{MaxBatch: 4, MaxWait: time.Millisecond}, func(r int) int {
		if r < 0 {
			return -1
		}
		return 0
	}, run)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := b.Do(ctx, 5); errc <- err }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller got %v", err)
	}
	close(release)
	if _, err := b.Do(context.Background(), -3); !errors.Is(err, boom) {
		t.Fatalf("failed batch gave %v", err)
	}
	if v, err := b.Do(context.Background(), 7); err != nil || v != 7 {
		t.Fatalf("after a failure: %v, %v", v, err)
	}
	b.Close()
	if _, err := b.Do(context.Background(), 1); !errors.Is(err, ErrBatcherClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestBatchedEmbedderIsDeterministic embeds texts from many goroutines at
// once and checks every vector is bit-identical to embedding it alone.
func TestBatchedEmbedderIsDeterministic(t *testing.T) {
	rt, dir := tinyModels(t)
	s, err := rt.NewSession(filepath.Join(dir, "bge", "model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	enc, err := NewTextEncoder(s, nil, PoolCLS, 128)
	if err != nil {
		t.Fatal(err)
	}
	seqs := randomIDs(31, 120, 2, 100, 1000, 30522, 101, 102)
	alone := make([][]float32, len(seqs))
	for i, q := range seqs {
		v, err := enc.EmbedIDs(context.Background(), [][]int{q})
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = v[0]
	}
	for _, opts := range []BatchOptions{
		{MaxBatch: 1},
		{MaxBatch: 7, MaxWait: time.Millisecond},
		{MaxBatch: 32, MaxWait: 20 * time.Millisecond, Workers: 2},
	} {
		t.Run(fmt.Sprintf("batch %d wait %s workers %d", opts.MaxBatch, opts.MaxWait, opts.Workers), func(t *testing.T) {
			be := NewBatchedEmbedder(enc, opts)
			defer be.Close()
			var wg sync.WaitGroup
			const callers = 6
			for c := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var mine [][]int
					var idx []int
					for i := c; i < len(seqs); i += callers {
						mine, idx = append(mine, seqs[i]), append(idx, i)
					}
					got, err := be.EmbedIDs(context.Background(), mine)
					if err != nil {
						t.Error(err)
						return
					}
					for j, i := range idx {
						if !slices.Equal(got[j], alone[i]) {
							t.Errorf("text %d differs from its embedding alone", i)
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

func TestBatchedLetterScorerIsolatesBadPrompts(t *testing.T) {
	ls := openLetterScorer(t)
	bs := NewBatchedLetterScorer(ls, BatchOptions{MaxBatch: 4})
	defer bs.Close()
	prompts := []letters.Prompt{{Text: "why did the boy run", Options: 4}, {Text: "bad", Options: 1}, {Text: "what is the man doing", Options: 2}}
	got, errs := bs.Score(context.Background(), prompts)
	if errs[1] == nil || errs[0] != nil || errs[2] != nil {
		t.Fatalf("errors %v: want only prompt 1 to fail", errs)
	}
	direct, err := ls.Score(context.Background(), []letters.Prompt{prompts[0], prompts[2]})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0], direct[0]) || !slices.Equal(got[2], direct[1]) {
		t.Fatalf("batched %v %v, direct %v", got[0], got[2], direct)
	}
}
