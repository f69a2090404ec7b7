package run

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/features"
	"github.com/vidscreen/vidscreen/models/letters"
)

// identifyVideos sets each item's video identity, which shared videos
// (Video-Index 4.5), the screening funnel's duplicate steps and the
// selector's one-per-video cap compare: its content (the SHA-256 the
// feature stage computed, else its video id), joined where the image tower
// embedded frames by the perceptual match on the mean of the 32 uniform
// frames (issue 20.9: a re-encode has other bytes but the same pictures).
// It reads only the extracted features, which a resumed run reads back
// from the cache, so a killed run gets the same identities; the join is
// exact, so any thread count does too.
func (a *audit) identifyVideos(ctx context.Context, fr *features.Result) error {
	base := make([]string, len(a.items))
	frames := make([]dups.FrameMean, len(a.items))
	embedded := false
	for i, f := range fr.Items {
		base[i] = dups.VideoIdentity(a.items[i], f.Hash)
		// An item whose only failure is a served reader's server's
		// (letters.FailureServer) had its frames read and embedded: it is
		// identified as if it had succeeded.
		if f.Failure != "" && f.Failure != letters.FailureServer || f.Video < 0 {
			continue
		}
		if rows := f.Rows[features.UniformSet.Name]; len(rows) > 0 {
			frames[i] = dups.MeanFrame(fr.Videos[f.Video].Embeddings, rows)
			embedded = true
		}
	}
	a.videoIdentity, a.videosBy = base, dups.VideosByContent
	if !embedded {
		a.opt.Progress.Note("video identity", "by", "content", "why", "no frame was embedded by an image tower")
		return nil
	}
	ids, n, err := dups.PerceptualIdentities(ctx, base, frames, dups.PerceptualThreshold, a.opt.kernelOptions())
	if err != nil {
		return fmt.Errorf("video identity: %w", err)
	}
	a.videoIdentity, a.videosBy = ids, dups.VideosByPerceptual
	a.opt.Progress.Note("video identity", "by", "content+perceptual", "compared", n.Videos, "still", n.Still, "joined_items", n.Joined, "groups", n.Groups)
	return nil
}
