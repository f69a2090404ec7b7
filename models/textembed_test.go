package models

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/gpu"
)

func TestTextEncoderMatchesReference(t *testing.T) {
	rt, dir := tinyModels(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		folder  string
		pooling Pooling
	}{
		{name: "BGE-like with CLS pooling", folder: "bge", pooling: PoolCLS},
		{name: "MPNet-like with mean pooling and no token types", folder: "mpnet", pooling: PoolMean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := rt.NewSession(filepath.Join(dir, tc.folder, "model.onnx"), gpu.CPUDevice(), DynamicShapes)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			enc, err := NewTextEncoder(s, nil, tc.pooling, 64)
			if err != nil {
				t.Fatal(err)
			}
			enc.MaxBatch = 5
			ref := fixtures.bert
			if tc.folder == "mpnet" {
				ref = fixtures.mpnet
			}
			seqs := randomIDs(11, 23, 2, 64, 1000, 30522, 101, 102)
			got, err := enc.EmbedIDs(ctx, seqs)
			if err != nil {
				t.Fatal(err)
			}
			if enc.Dim() != 32 {
				t.Fatalf("Dim() = %d, want 32", enc.Dim())
			}
			for i, s := range seqs {
				want := refPool(ref.Forward(s, nil), tc.pooling)
				closeTo(t, "text "+itoa(i), got[i], want, 2e-5)
			}
			// One at a time gives the same vectors, bit for bit: each text
			// is padded to its own length bucket whatever its batch holds.
			for i, s := range seqs {
				one, err := enc.EmbedIDs(ctx, [][]int{s})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(one[0], got[i]) {
					t.Fatalf("text %d: alone %v, batched %v", i, head(one[0]), head(got[i]))
				}
			}
			again, err := enc.EmbedIDs(ctx, seqs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if !slices.Equal(again[i], got[i]) {
					t.Fatalf("text %d: second run differs", i)
				}
			}
		})
	}
}

func TestTextEncoderRejectsBadInput(t *testing.T) {
	rt, dir := tinyModels(t)
	s, err := rt.NewSession(filepath.Join(dir, "bge", "model.onnx"), gpu.CPUDevice(), DynamicShapes)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	enc, err := NewTextEncoder(s, nil, PoolCLS, 16)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ids  [][]int
	}{
		{"an empty sequence", [][]int{{101, 102}, {}}},
		{"a sequence longer than the maximum", [][]int{make([]int, 17)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := enc.EmbedIDs(context.Background(), tc.ids); err == nil {
				t.Fatal("no error")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := enc.EmbedIDs(ctx, [][]int{{101, 102}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	if _, err := NewTextEncoder(s, nil, "max", 16); err == nil {
		t.Fatal("pooling max accepted")
	}
}

// TestTextEncoderSameBitsAtAnyThreadCount checks the README's promise of
// byte-identical outputs whatever the number of threads.
func TestTextEncoderSameBitsAtAnyThreadCount(t *testing.T) {
	_, dir := tinyModels(t)
	seqs := randomIDs(41, 20, 2, 120, 1000, 30522, 101, 102)
	var first [][]float32
	for _, threads := range []int{1, 2, 3} {
		rt, err := NewRuntime(RuntimeOptions{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		s, err := rt.NewSession(filepath.Join(dir, "bge", "model.onnx"), gpu.CPUDevice(), DynamicShapes)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := NewTextEncoder(s, nil, PoolMean, 128)
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.EmbedIDs(context.Background(), seqs)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
			continue
		}
		for i := range got {
			if !slices.Equal(got[i], first[i]) {
				t.Fatalf("%d threads: text %d differs from 1 thread", threads, i)
			}
		}
	}
}
