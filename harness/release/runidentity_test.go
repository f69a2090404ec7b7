package release

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/kernels"
)

// The pool takes each video's identity from the run, as the screen carries
// it (items.parquet video_identity or video_sha256), so that the
// one-per-video cap counts a re-encode the audit's perceptual match joined
// as the cards count it; hashing the files again (--videos) keeps it.
func TestFromScreenCarriesTheRunsVideoIdentity(t *testing.T) {
	t.Parallel()
	h := strings.Repeat("a", 64)
	joined := "perceptual:sha256:" + h
	row := func(id, video, videoID string, margin float64) screen.Row {
		return screen.Row{ID: id, Benchmark: "B", Video: video, VideoID: videoID, Options: []string{"a", "b"}, Kept: true, Cluster: int32(len(id)), ClusterSize: 1,
			Task: "t", Embedding: -1, Verdicts: []screen.Verdict{{Scored: true, Margin: margin}}}
	}
	for _, tt := range []struct {
		name     string
		rows     []screen.Row
		want     []string // Candidate.Video
		videosBy string
		picks    int // --hardest 3 under the one-per-video cap
	}{
		{"perceptual", []screen.Row{row("1", "a.mp4", joined, 1), row("2", "b.mp4", joined, 2), row("3", "c.mp4", "sha256:"+strings.Repeat("c", 64), 3)},
			[]string{joined, joined, "sha256:" + strings.Repeat("c", 64)}, "content+perceptual", 2},
		{"bare sha256 of an older run", []screen.Row{row("1", "a.mp4", h, 1), row("2", "b.mp4", h, 2), row("3", "c.mp4", "c.mp4", 3)},
			[]string{"sha256:" + h, "sha256:" + h, ""}, "content (SHA-256", 2},
		{"paths only", []screen.Row{row("1", "a.mp4", "a.mp4", 1), row("2", "b.mp4", "b.mp4", 2), row("3", "c.mp4", "c.mp4", 3)},
			[]string{"", "", ""}, "", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &screen.Screen{Attackers: []screen.Attacker{{Name: "copy", Level: "pool"}}, Rows: tt.rows}
			p, err := FromScreen(context.Background(), s, nil, nil, DefaultSceneThreshold, kernels.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range p.Candidates {
				if c.Video != tt.want[i] {
					t.Errorf("candidate %d: video %q, want %q", i, c.Video, tt.want[i])
				}
			}
			if !strings.Contains(p.VideosBy, tt.videosBy) || (tt.videosBy == "") != (p.VideosBy == "") {
				t.Errorf("videos by %q, want %q in it", p.VideosBy, tt.videosBy)
			}
			sel, err := Hardest(p, Query{Hardest: 3, Per: PerBenchmark}, 1, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sel.Picks) != tt.picks {
				t.Errorf("%d picks, want %d under the one-per-video cap", len(sel.Picks), tt.picks)
			}
		})
	}
	// --videos hashes the files: a.mp4 and b.mp4 hold other bytes, but the
	// run joined them, and they stay one video.
	root := t.TempDir()
	for name, body := range map[string]string{"a.mp4": "crf 23", "b.mp4": "crf 38", "c.mp4": "other"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &screen.Screen{Attackers: []screen.Attacker{{Name: "copy", Level: "pool"}},
		Rows: []screen.Row{row("1", "a.mp4", joined, 1), row("2", "b.mp4", joined, 2), row("3", "c.mp4", "c.mp4", 3)}}
	p, err := FromScreen(context.Background(), s, nil, nil, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Candidates {
		p.Candidates[i].Item.VideoPath = p.Candidates[i].Item.Video
	}
	if _, err := IdentifyVideos(context.Background(), p, root); err != nil {
		t.Fatal(err)
	}
	if a, b, c := p.Candidates[0].Video, p.Candidates[1].Video, p.Candidates[2].Video; a != joined || b != joined || !strings.HasPrefix(c, "sha256:") {
		t.Errorf("after --videos: %q %q %q, want the run's joined identity twice and c by content", a, b, c)
	}
}
