package features

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
)

// TestExtractDecodesEachVideoOnce asks the image tower's frame sets and the
// three VLM sets of the same items: each video is handed to the decoders
// once (the four files inside the root that exist: three decodable, one
// corrupt), the VLM scores are bit for bit those of ReadVLM alone, and a
// second call on the same cache opens only the corrupt file again (a
// failure is never cached).
func TestExtractDecodesEachVideoOnce(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	items := testItems()
	ctx := context.Background()
	centre, shuffled, tenth := VLMSets(UniformFrames)
	cacheDir := t.TempDir()
	opt := testOptions(root, cacheDir, 2)
	opt.VLMSets = []VLMSet{centre, shuffled, tenth}
	opt.VLM, opt.VLMName, opt.Seed = &fakeVLM{maxImages: 8}, "fake", 7
	res, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Stats; st.Opened != 4 || st.Videos != 4 || st.Computed != 3 || st.Failed != 1 {
		t.Errorf("stats %+v: want 4 videos opened (3 computed, the corrupt one failed)", st)
	}

	alone, err := ReadVLM(ctx, items, VLMOptions{Root: root, CacheDir: t.TempDir(), Sets: opt.VLMSets, Reader: &fakeVLM{maxImages: 8},
		ReaderName: "fake", Size: opt.Size, Decode: opt.Decode, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for i, it := range res.Items {
		if (it.Failure == "") != (it.VLM != nil) {
			t.Errorf("item %s: failure %q, VLM scores %v", items[i].ID, it.Failure, it.VLM)
		}
		if it.Failure == "" && it.Duration <= 0 {
			t.Errorf("item %s: no video duration", items[i].ID)
		}
		for _, s := range opt.VLMSets {
			if !slices.Equal(it.VLM[s.Name], alone[i][s.Name]) {
				t.Errorf("item %s set %s: %v in the one pass, %v alone", items[i].ID, s.Name, it.VLM[s.Name], alone[i][s.Name])
			}
			if it.VLM[s.Name] != nil {
				scored++
			}
		}
	}
	if scored != 12 {
		t.Errorf("%d scores, want 4 decodable items x 3 sets", scored)
	}

	f2 := &fakeVLM{maxImages: 8}
	opt.VLM = f2
	again, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Stats; st.Opened != 1 || st.Cached != 3 {
		t.Errorf("second call: stats %+v, want only the corrupt video opened and 3 cached", st)
	}
	if len(f2.prompts) != 0 {
		t.Errorf("second call scored %d prompts, want all from the cache", len(f2.prompts))
	}
	for i := range items {
		if again.Items[i].Duration != res.Items[i].Duration {
			t.Errorf("item %s: duration %v from the cache, %v computed", items[i].ID, again.Items[i].Duration, res.Items[i].Duration)
		}
	}
}

// TestExtractScoresPermutedOptions asks the centre set with two option
// permutations: each item gets scores under "vlm-centre", "vlm-centre#p1"
// and "vlm-centre#p2", and the prompts of permutation k list the options in
// the order Permute gave (here: reversed for k = 1, rotated by one for
// k = 2).
func TestExtractScoresPermutedOptions(t *testing.T) {
	t.Parallel()
	root := videoRoot(t)
	items := testItems()[:1]
	items[0].Options = []string{"red", "green", "blue"}
	centre, _, _ := VLMSets(UniformFrames)
	centre.Permutations = 2
	f := &fakeVLM{maxImages: 8}
	opt := Options{Root: root, CacheDir: t.TempDir(), VLMSets: []VLMSet{centre}, VLM: f, VLMName: "fake",
		Size: decode.Size{Short: 32}, Decode: decode.Pool{Workers: 1, Threads: 1}, Seed: 1,
		Permute: func(_ *harness.Item, k int) []int { return [][]int{nil, {2, 1, 0}, {1, 2, 0}}[k] }}
	res, err := Extract(context.Background(), items, opt)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Items[0].VLM
	for _, name := range []string{"vlm-centre", "vlm-centre#p1", "vlm-centre#p2"} {
		if len(got[name]) != 3 {
			t.Errorf("scores %s: %v, want 3", name, got[name])
		}
	}
	if len(f.prompts) != 3 {
		t.Fatalf("%d prompts, want 3", len(f.prompts))
	}
	for k, first := range []string{"A. red\nB. green\nC. blue", "A. blue\nB. green\nC. red", "A. green\nB. blue\nC. red"} {
		if !strings.Contains(f.prompts[k].Text, first) {
			t.Errorf("prompt %d lists the options as\n%s\nwant %q", k, f.prompts[k].Text, first)
		}
	}
}
