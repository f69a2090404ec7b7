package features

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/models"
)

// groupedVLM is fakeVLM as a served reader declares itself (VLMGroups):
// it records each call's prompt count and how many calls were in flight at
// once, each call held 0.3 s so that calls of several videos overlap.
type groupedVLM struct {
	fakeVLM
	videos int

	mu          sync.Mutex
	calls       []int
	active, top int
}

func (g *groupedVLM) VideosInFlight() int { return g.videos }

func (g *groupedVLM) Score(ctx context.Context, ps []models.VLMPrompt) ([][]float64, error) {
	g.mu.Lock()
	g.calls = append(g.calls, len(ps))
	g.active++
	g.top = max(g.top, g.active)
	g.mu.Unlock()
	time.Sleep(300 * time.Millisecond)
	defer func() {
		g.mu.Lock()
		g.active--
		g.mu.Unlock()
	}()
	return g.fakeVLM.Score(ctx, ps)
}

// TestVLMGroupsScoreWholeVideos: a scorer that takes whole groups gets
// each video's prompts in one call, however many (an ONNX one gets them
// 16 at a time), and up to VideosInFlight videos' calls at once; the
// scores are the same at 1 and 4 videos in flight, and the same as the
// ONNX path's.
func TestVLMGroupsScoreWholeVideos(t *testing.T) {
	t.Parallel()
	root := videoRoot(t)
	// Ten items on each of three videos, each under three sets: 30
	// prompts a video, more than one ONNX chunk.
	var items []*harness.Item
	for k, path := range []string{"bbb.mp4", "short.webm", "bars.mp4"} {
		for j := range 10 {
			id := fmt.Sprintf("v%d-%d", k, j)
			items = append(items, &harness.Item{ID: id, Benchmark: "B", Video: fmt.Sprint(k), VideoPath: path,
				Question: fmt.Sprintf("what happens %d", j), Options: []string{"a", "b", "c"}, Source: "t.jsonl:" + id})
		}
	}
	centre, shuffled, tenth := VLMSets(4)
	run := func(s VLMScorer) []Item {
		t.Helper()
		res, err := Extract(context.Background(), items, Options{Root: root, CacheDir: t.TempDir(), VLMSets: []VLMSet{centre, shuffled, tenth},
			VLM: s, VLMName: "fake", Size: decode.Size{Short: 32}, Decode: decode.Pool{Workers: 3, Threads: 1}, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		return res.Items
	}
	onnx := &fakeVLM{maxImages: 8}
	want := run(onnx)
	for _, tc := range []struct {
		videos, top int // top: the most calls in flight at once, at least
	}{{1, 1}, {4, 2}} {
		t.Run(fmt.Sprintf("%d videos in flight", tc.videos), func(t *testing.T) {
			g := &groupedVLM{fakeVLM: fakeVLM{maxImages: 8}, videos: tc.videos}
			got := run(g)
			slices.Sort(g.calls)
			if fmt.Sprint(g.calls) != "[30 30 30]" {
				t.Errorf("calls of %v prompts, want one of 30 per video", g.calls)
			}
			if g.top < tc.top || g.top > tc.videos {
				t.Errorf("%d calls in flight at once, want from %d to %d", g.top, tc.top, tc.videos)
			}
			for i := range items {
				for name, s := range want[i].VLM {
					if !slices.Equal(s, got[i].VLM[name]) {
						t.Errorf("item %d set %s: %v grouped, %v in chunks", i, name, got[i].VLM[name], s)
					}
				}
			}
		})
	}
}
