package features

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
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
	t.Parallel()
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
		if it.Failure == letters.FailureServer {
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

// downCaptioner is a captioner whose server fails on every frame while
// down is set, as a served captioner's does after its retries.
type downCaptioner struct {
	Captioner
	down atomic.Bool
}

func (c *downCaptioner) CaptionFrames(ctx context.Context, frames []imageprep.Frame) ([]models.Caption, error) {
	if c.down.Load() {
		out := make([]models.Caption, len(frames))
		for i := range out {
			out[i].Failed = true
		}
		return out, nil
	}
	return c.Captioner.CaptionFrames(ctx, frames)
}

// TestCaptionServerFailure: while the captioner's server fails, the items
// of every video it captions fail with reason server (the others keep
// their own reasons) and nothing is cached; once it is back, the next run
// gives what a run on a healthy captioner gives.
func TestCaptionServerFailure(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	items := testItems()
	ctx := context.Background()
	c := &downCaptioner{Captioner: tiny.capt}
	c.down.Store(true)
	opt := testOptions(root, t.TempDir(), 2)
	opt.Captioner = []Captioner{c}
	down, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Extract(ctx, items, testOptions(root, t.TempDir(), 2))
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range down.Items {
		want := fresh.Items[i].Failure
		if want == "" {
			want = letters.FailureServer
		}
		if it.Failure != want {
			t.Errorf("item %s: failure %q while the captioner's server fails, want %q", items[i].ID, it.Failure, want)
		}
	}
	c.down.Store(false)
	back, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stats.Cached != 0 {
		t.Errorf("%d videos read from the cache after the failed run; want none cached", back.Stats.Cached)
	}
	for i, it := range back.Items {
		if it.Failure != fresh.Items[i].Failure {
			t.Errorf("item %s: failure %q after recovery, %q on a healthy captioner", items[i].ID, it.Failure, fresh.Items[i].Failure)
		}
		if it.Video >= 0 && fresh.Items[i].Video >= 0 && !slices.Equal(back.Videos[it.Video].Captions, fresh.Videos[fresh.Items[i].Video].Captions) {
			t.Errorf("item %s: captions after recovery differ from a healthy captioner's", items[i].ID)
		}
	}
}
