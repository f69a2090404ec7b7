package run

import (
	"context"
	"time"
)

// featureStage is the feature stage of a run whose attackers read the
// videos or that runs a reference model: videoStage fills what the frame
// attackers read of each item (a.visual, a.failures, a.inputs and the rest
// of the feature stage's fields of audit); otherwise it does nothing. It
// then records the served readers' modes, before the units, and forgets the
// stored answers of the frame attackers that read other bytes than the
// videos hold now (dropStale). When ctx is cancelled the error says that
// what is stored stays, and wraps the context's.
func (a *audit) featureStage(ctx context.Context, emb textEmbedder) error {
	t0 := time.Now()
	if err := a.videoStage(ctx, emb); err != nil {
		return err
	}
	if _, err := a.servedModes(); err != nil { // the VLM readers' and captioner's, before the units
		return err
	}
	a.dropStale()
	if a.features != nil {
		a.stage("features", t0)
		a.res.Features = a.features
		if len(a.opt.Merge) > 0 && a.features.Computed > 0 {
			a.opt.Progress.Note("merge: the shards lacked the features of some videos, computed here", "videos", a.features.Computed)
		}
	}
	return nil
}
