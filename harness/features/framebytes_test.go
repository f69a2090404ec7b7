package features

import (
	"context"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
)

// TestFrameBytesBound: frames decoded at display size (the audit's
// --frame-resize processor) go through the stages within Options.FrameBytes
// (one byte: every video alone, each larger than the bound) and give the
// same features, bit for bit, as with no bound and with other decoder
// counts; their cache keys differ from those of frames FFmpeg scaled, so
// neither path reads the other's features.
func TestFrameBytesBound(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	all := testItems()
	items := []*harness.Item{all[0], all[2], all[7]} // bbb.mp4 (640x360), short.webm (1280x720), bars.mp4 (1920x1080)
	ctx := context.Background()
	run := func(size decode.Size, bound int64, workers int) *Result {
		t.Helper()
		opt := testOptions(root, t.TempDir(), workers)
		opt.Sets = []Set{CentreSet, CaptionSet}
		opt.Size, opt.FrameBytes = size, bound
		res, err := Extract(ctx, items, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range res.Items {
			if it.Failure != "" {
				t.Fatalf("item %s: %s (%v)", items[i].ID, it.Failure, it.Err)
			}
		}
		return res
	}
	alone := run(decode.Size{}, 1, 2)
	free := run(decode.Size{}, -1, 1)
	scaled := run(decode.Size{Short: 32}, 0, 2)
	if len(alone.Videos) != 3 || len(free.Videos) != 3 {
		t.Fatalf("%d and %d videos; want 3", len(alone.Videos), len(free.Videos))
	}
	for k, v := range alone.Videos {
		w := free.Videos[k]
		if !slices.Equal(v.Embeddings.Data, w.Embeddings.Data) || !slices.Equal(v.Captions, w.Captions) || !slices.Equal(v.Times, w.Times) || v.Key != w.Key {
			t.Errorf("%s: the features within one byte differ from those with no bound", v.Path)
		}
		if v.Key == scaled.Videos[k].Key {
			t.Errorf("%s: display-size frames and frames scaled to 32 share the cache key %s", v.Path, v.Key)
		}
		if slices.Equal(v.Embeddings.Data, scaled.Videos[k].Embeddings.Data) {
			t.Errorf("%s: display-size and scaled frames gave the same embeddings", v.Path)
		}
	}
	if alone.Stats.FramesDecoded != free.Stats.FramesDecoded || alone.Stats.FramesDecoded == 0 {
		t.Errorf("frames decoded %d within the bound, %d without", alone.Stats.FramesDecoded, free.Stats.FramesDecoded)
	}
}
