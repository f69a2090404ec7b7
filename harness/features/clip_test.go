package features

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
)

// TestExtractFailsAClipOutsideItsVideoAlone: an item whose clip starts
// after its video's end used to fail every item of that video as
// "corrupt"; now it fails alone (clip-outside-video) and the video's other
// items get the features they get without it.
func TestExtractFailsAClipOutsideItsVideoAlone(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	mk := func(id, path string, start, end float64) *harness.Item {
		it := &harness.Item{ID: id, Benchmark: "B", Video: id, VideoPath: path, Question: "what happens", Options: []string{"a", "b"}, Source: "t.jsonl:" + id}
		if end > 0 {
			it.Start, it.End = f64(start), f64(end)
		}
		return it
	}
	ctx := context.Background()
	sound := []*harness.Item{mk("whole", "bbb.mp4", 0, 0), mk("clip", "bbb.mp4", 5, 10)}
	want, err := Extract(ctx, sound, testOptions(root, t.TempDir(), 2))
	if err != nil {
		t.Fatal(err)
	}
	items := append(slices.Clone(sound),
		mk("late", "bbb.mp4", 40, 45),        // bbb.mp4 lasts 30 s
		mk("all-late", "short.webm", 60, 61), // the only item of its video
	)
	res, err := Extract(ctx, items, testOptions(root, t.TempDir(), 2))
	if err != nil {
		t.Fatal(err)
	}
	for i, wantFail := range []string{"", "", FailureClipOutside, FailureClipOutside} {
		got := res.Items[i]
		if got.Failure != wantFail {
			t.Errorf("item %s: failure %q (%v), want %q", items[i].ID, got.Failure, got.Err, wantFail)
		}
		if wantFail != "" && (!errors.Is(got.Err, decode.ErrClipOutside) || got.Video != -1) {
			t.Errorf("item %s: error %v, video %d; want ErrClipOutside and no video", items[i].ID, got.Err, got.Video)
		}
	}
	for i := range sound {
		g, w := res.Items[i], want.Items[i]
		if g.Failure != "" {
			continue
		}
		gv, wv := res.Videos[g.Video], want.Videos[w.Video]
		for _, s := range []string{CentreSet.Name, BagSet.Name} {
			for k, r := range g.Rows[s] {
				if !slices.Equal(gv.Embeddings.Row(r), wv.Embeddings.Row(w.Rows[s][k])) || gv.Times[r] != wv.Times[w.Rows[s][k]] {
					t.Errorf("item %s, set %s, frame %d differs from a run without the clip outside", sound[i].ID, s, k)
				}
			}
			if len(g.Rows[s]) != len(w.Rows[s]) || len(g.Rows[s]) == 0 {
				t.Errorf("item %s, set %s: %d rows, want %d", sound[i].ID, s, len(g.Rows[s]), len(w.Rows[s]))
			}
		}
	}
}
