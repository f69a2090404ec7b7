package features

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/kernels"
)

// TestCacheRefusesChangedBytes stores one video's features, harms the
// files of its entry, and loads it again: a flipped byte in either file is
// a *checksum.DamagedError (it once changed the answers unseen), a missing
// checksum (a store cut short) is a miss, and an untouched entry reads
// back whole.
func TestCacheRefusesChangedBytes(t *testing.T) {
	t.Parallel()
	flip := func(at func(size int) int) func(string) {
		return func(p string) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[at(len(b))] ^= 0x01
			os.WriteFile(p, b, 0o644)
		}
	}
	last := func(n int) int { return n - 2 } // in the last float32 (the .json: its final digit)
	tests := []struct {
		name    string
		file    int // 0: the .npy, 1: the .json
		harm    func(string)
		damaged bool
		miss    bool
	}{
		{"untouched", 0, func(string) {}, false, false},
		{"a byte of an embedding flipped", 0, flip(last), true, false},
		{"a byte of the times flipped", 1, flip(func(n int) int { return n / 2 }), true, false},
		{"the .npy's checksum missing", 0, func(p string) { os.Remove(p + checksum.Ext) }, false, true},
		{"the .json's checksum missing", 1, func(p string) { os.Remove(p + checksum.Ext) }, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cache{dir: t.TempDir()}
			m := kernels.NewMatrix(2, 3)
			for i := range m.Data {
				m.Data[i] = float32(i) / 7
			}
			v := &Video{Path: "v.mp4", Key: "k1", Embeddings: m, Times: []time.Duration{time.Second, 3 * time.Second}}
			if err := c.store(v, "plan"); err != nil {
				t.Fatal(err)
			}
			np, jp := c.paths("k1")
			tc.harm([]string{np, jp}[tc.file])
			got, err := c.load("k1", 3)
			switch {
			case tc.damaged:
				if !errors.Is(err, checksum.ErrDamaged) || got != nil {
					t.Errorf("load = %v, %v; want a damaged entry", got, err)
				}
			case tc.miss:
				if err != nil || got != nil {
					t.Errorf("load = %v, %v; want a miss", got, err)
				}
			default:
				if err != nil || got == nil || !slices.Equal(got.Embeddings.Data, m.Data) || !slices.Equal(got.Times, v.Times) {
					t.Errorf("load = %+v, %v; want the stored entry", got, err)
				}
			}
		})
	}
}
