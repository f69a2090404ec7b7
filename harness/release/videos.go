package release

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// VideoCount says how IdentifyVideos identified a pool's videos.
type VideoCount struct {
	// Read counts the candidates whose video file was read and hashed;
	// Unread those whose file could not be resolved or read, which keep
	// their video id.
	Read, Unread int
	// FirstUnread names the first candidate whose file was not read, and
	// why ("" when every one was).
	FirstUnread string
}

// IdentifyVideos sets each candidate's Video to its identity by content:
// the SHA-256 of its video file under root (harness.HashVideo, as the
// audit's feature extraction computes it), so that the one-per-video cap
// counts one clip shipped under two names once, as the cards count shared
// videos (Video-Index 4.5). A candidate whose file cannot be resolved or
// read keeps its video id. A candidate the run's perceptual match joined
// with a re-encode (FromScreen) keeps that identity: hashing its file again
// cannot see the re-encode. Files are hashed a few at a time; each path
// once.
func IdentifyVideos(ctx context.Context, p *Pool, root string) (VideoCount, error) {
	paths := make([]string, len(p.Candidates))
	why := make([]error, len(p.Candidates))
	var files []string
	at := map[string]int{}
	for i := range p.Candidates {
		path, err := harness.ResolveVideo(root, p.Candidates[i].Item)
		if err != nil {
			why[i] = err
			continue
		}
		paths[i] = path
		if _, ok := at[path]; !ok {
			at[path] = len(files)
			files = append(files, path)
		}
	}
	sums := make([]string, len(files))
	errs := make([]error, len(files))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(4, runtime.GOMAXPROCS(0)))
	for k, f := range files {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			sums[k], errs[k] = harness.HashVideo(f)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return VideoCount{}, err
	}
	var n VideoCount
	for i := range p.Candidates {
		c := &p.Candidates[i]
		content := ""
		if why[i] == nil {
			content, why[i] = sums[at[paths[i]]], errs[at[paths[i]]]
		}
		if why[i] != nil {
			content = ""
			n.Unread++
			if n.FirstUnread == "" {
				n.FirstUnread = fmt.Sprintf("%s: %v", keyOf(c), why[i])
			}
		} else {
			n.Read++
		}
		if !strings.HasPrefix(c.Video, dups.PerceptualPrefix) {
			c.Video = dups.VideoIdentity(c.Item, content)
		}
	}
	return n, nil
}

// runIdentity is the identity the run gave r's video, as the screen
// carries it: items.parquet's video_identity as is, a bare SHA-256 (a run
// that wrote only video_sha256) with dups.ContentPrefix, and "" where the
// screen fell back to the video path, so the video id stands.
func runIdentity(r *screen.Row) string {
	switch {
	case r.VideoID == "" || r.VideoID == r.Video:
		return ""
	case strings.HasPrefix(r.VideoID, dups.IDPrefix), strings.HasPrefix(r.VideoID, dups.ContentPrefix), strings.HasPrefix(r.VideoID, dups.PerceptualPrefix):
		return r.VideoID
	}
	return dups.ContentPrefix + r.VideoID
}

// runVideosBy says, for Pool.VideosBy, what the run's identities were:
// "content+perceptual" when a perceptual match joined some, "content"
// when they are SHA-256s, "" when the screen carried none.
func runVideosBy(cands []Candidate) string {
	content, perceptual := 0, 0
	for i := range cands {
		switch v := cands[i].Video; {
		case strings.HasPrefix(v, dups.PerceptualPrefix):
			perceptual++
		case strings.HasPrefix(v, dups.ContentPrefix):
			content++
		}
	}
	switch {
	case perceptual > 0:
		return fmt.Sprintf("the run's identity, content+perceptual (items.parquet video_identity: SHA-256, and mean frame embedding cosine >= %.2f for %d items): %d items by content, %d by video id", dups.PerceptualThreshold, perceptual, content+perceptual, len(cands)-content-perceptual)
	case content > 0:
		return fmt.Sprintf("the run's identity, content (SHA-256 of the video file, items.parquet): %d items by content, %d by video id", content, len(cands)-content)
	}
	return ""
}
