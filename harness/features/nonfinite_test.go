package features

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/models"
)

// nanEncoder is an image tower gone wrong: every embedding it returns has
// a NaN in its first column.
type nanEncoder struct{ ImageEncoder }

func (e nanEncoder) EmbedImages(ctx context.Context, b models.ImageBatch) ([][]float32, error) {
	out, err := e.ImageEncoder.EmbedImages(ctx, b)
	for _, row := range out {
		row[0] = float32(math.NaN())
	}
	return out, err
}

// TestExtractFailsVideosWithNonFiniteEmbeddings checks that a model emitting
// NaN fails the items of the videos it embedded, with the reason, instead of
// handing NaN similarities to the attackers, and that nothing of those videos
// is cached: a run with a sound model computes them afresh.
func TestExtractFailsVideosWithNonFiniteEmbeddings(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	items := testItems()
	ctx := context.Background()
	cacheDir := t.TempDir()
	opt := testOptions(root, cacheDir, 2)
	opt.Image = []ImageEncoder{nanEncoder{tiny.it}}
	res, err := Extract(ctx, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	wantFail := []string{FailureNonFinite, FailureNonFinite, FailureNonFinite, FailureMissing, FailureOutsideRoot, "corrupt", FailureOutsideRoot, FailureNonFinite}
	for i, it := range res.Items {
		if it.Failure != wantFail[i] {
			t.Errorf("item %s: failure %q (%v), want %q", items[i].ID, it.Failure, it.Err, wantFail[i])
		}
	}
	if st := res.Stats; st.Failed != 4 || st.Computed != 0 {
		t.Errorf("stats %+v: want the 4 decodable-or-not videos failed and none computed", st)
	}
	again, err := Extract(ctx, items, testOptions(root, cacheDir, 2))
	if err != nil {
		t.Fatal(err)
	}
	if st := again.Stats; st.Cached != 0 || st.Computed != 3 {
		t.Errorf("run with a sound model: stats %+v, want nothing cached and 3 videos computed", st)
	}
}
