package features

import (
	"context"
	"maps"
	"testing"
)

// TestExtractCountsUnresolvedVideos: the videos whose paths did not
// resolve (missing, outside the root) were in no count ("features done
// failed=4" with 7 more unresolved); they are counted, by reason, with the
// videos that failed to decode.
func TestExtractCountsUnresolvedVideos(t *testing.T) {
	openTiny(t)
	root := videoRoot(t)
	items := testItems()
	// A second item on an unresolved name is the same video, counted once.
	again := *items[3]
	again.ID = "gone-again"
	items = append(items, &again)
	res, err := Extract(context.Background(), items, testOptions(root, t.TempDir(), 2))
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	// gone.mp4 is missing, ../x.mp4 and link.mp4 leave the root;
	// corrupt.mp4 resolves and fails to decode.
	want := map[string]int{FailureMissing: 1, FailureOutsideRoot: 2, "corrupt": 1}
	if st.Unresolved != 3 || st.Failed != 1 || !maps.Equal(st.FailedBy, want) {
		t.Errorf("unresolved %d, failed %d, by reason %v; want 3, 1, %v", st.Unresolved, st.Failed, st.FailedBy, want)
	}
}
