package selection

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// restoreItems reads the audit's item files, checks that each is one of the
// run's inputs (by content: another file would give the release fields the
// screen never judged), and gives the pool's items what the screen does
// not carry (video_path, start, end, meta).
func restoreItems(ctx context.Context, pool *release.Pool, files []string, cfg rundir.Config) error {
	items, digests, err := harness.ReadFSDigests(ctx, nil, files, harness.ReadOptions{})
	if err != nil {
		return fmt.Errorf("%w: --items: %v", harness.ErrBadInput, err)
	}
	for _, d := range digests {
		found := false
		for _, in := range cfg.Items {
			if in.SHA256 == d.SHA256 {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%w: --items %s: not one of the files the run audited (its config.json lists them by content)", harness.ErrBadInput, d.Name)
		}
	}
	if _, err := release.Restore(pool, items); err != nil {
		return fmt.Errorf("%w: --items: %v", harness.ErrBadInput, err)
	}
	return nil
}
