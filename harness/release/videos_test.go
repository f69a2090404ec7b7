package release

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One clip shipped under two names is one video for the one-per-video cap
// (Video-Index 4.5, video identity by content): a.mp4 and b.mp4 hold the
// same bytes, c.mp4 others. By video id the three hardest items are three
// videos; by content only two, so --hardest 3 ends one short. The file of
// d is missing: it keeps its video id.
func TestOnePerVideoCapCountsContent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{"a.mp4": "same clip", "b.mp4": "same clip", "c.mp4": "another clip"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := []cand{
		{id: "1", source: "S", video: "a", task: "t", dur: 5, template: 1, templateSize: 1, margin: 1},
		{id: "2", source: "S", video: "b", task: "t", dur: 5, template: 2, templateSize: 1, margin: 2},
		{id: "3", source: "S", video: "c", task: "t", dur: 5, template: 3, templateSize: 1, margin: 3},
		{id: "4", source: "S", video: "d", task: "t", dur: 5, template: 4, templateSize: 1, margin: 9},
	}
	q := Query{Hardest: 3, Per: PerBenchmark}
	byID := testPool(t, cs)
	sel, err := Hardest(byID, q, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(byID, sel.Picks), ","); got != "1,2,3" {
		t.Fatalf("by video id: picks %s, want 1,2,3", got)
	}
	byContent := testPool(t, cs)
	n, err := IdentifyVideos(context.Background(), byContent, root)
	if err != nil {
		t.Fatal(err)
	}
	if n.Read != 3 || n.Unread != 1 || !strings.HasPrefix(n.FirstUnread, "S/4: ") {
		t.Errorf("identified %+v: want 3 read, S/4 unread", n)
	}
	if a, b := byContent.Candidates[0].Video, byContent.Candidates[1].Video; a != b || !strings.HasPrefix(a, "sha256:") {
		t.Errorf("a and b: identities %q and %q, want one content hash", a, b)
	}
	if d := byContent.Candidates[3].Video; d != "id:d" {
		t.Errorf("d (missing file): identity %q, want its video id", d)
	}
	sel, err = Hardest(byContent, q, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(byContent, sel.Picks), ","); got != "1,3,4" {
		t.Errorf("by content: picks %s, want 1,3,4 (b is a's clip)", got)
	}
	if byID.Snapshot() == byContent.Snapshot() {
		t.Error("the pool's snapshot does not depend on the video identities")
	}
}
