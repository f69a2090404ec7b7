package features

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
)

// failingVLM is fakeVLM whose server fails (no row) on every one-frame
// prompt while down is set, as a served reader's does after its retries.
type failingVLM struct {
	fakeVLM
	down atomic.Bool
}

func (f *failingVLM) Score(ctx context.Context, ps []models.VLMPrompt) ([][]float64, error) {
	out, err := f.fakeVLM.Score(ctx, ps)
	for i, p := range ps {
		if f.down.Load() && p.Images.N == 1 {
			out[i] = nil
		}
	}
	return out, err
}

// TestVLMServerFailure: the items of a video whose reader's server failed
// on some of their prompts fail with reason server, the others keep their
// features, and nothing of that video is cached; once the server is back
// the next run asks again and gets what a run on a healthy server gets,
// and a third run reads everything from the cache.
func TestVLMServerFailure(t *testing.T) {
	root := videoRoot(t)
	items := testItems()
	centre, shuffled, _ := VLMSets(UniformFrames)
	f := &failingVLM{fakeVLM: fakeVLM{maxImages: 8}}
	f.down.Store(true)
	opt := Options{Root: root, CacheDir: t.TempDir(), VLMSets: []VLMSet{centre, shuffled}, VLM: f, VLMName: "fake",
		Size: decode.Size{Short: 32}, Decode: decode.Pool{Workers: 2, Threads: 1}, Seed: 7}
	ctx := context.Background()
	down, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i, it := range down.Items {
		if it.Failure == models.FailureServer {
			failed++
			if it.Err == nil {
				t.Errorf("item %d failed for server with no error", i)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no item failed for server")
	}

	f.down.Store(false)
	f.prompts = nil
	back, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.prompts) == 0 {
		t.Error("the run after the server recovered asked nothing: the failed scores were cached")
	}
	healthy := &fakeVLM{maxImages: 8}
	fresh := opt
	fresh.CacheDir, fresh.VLM = t.TempDir(), healthy
	want, err := Extract(ctx, items, fresh)
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		if back.Items[i].Failure != want.Items[i].Failure {
			t.Errorf("item %d: failure %q after recovery, %q on a healthy server", i, back.Items[i].Failure, want.Items[i].Failure)
		}
		for name, s := range want.Items[i].VLM {
			if !slices.Equal(s, back.Items[i].VLM[name]) {
				t.Errorf("item %d set %s: %v after recovery, %v on a healthy server", i, name, back.Items[i].VLM[name], s)
			}
		}
	}
	f.prompts = nil
	if _, err := Extract(ctx, items, opt); err != nil {
		t.Fatal(err)
	}
	if len(f.prompts) != 0 {
		t.Errorf("a third run asked %d prompts; want all from the cache", len(f.prompts))
	}
}
