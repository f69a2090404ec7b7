package export

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
)

// An item whose video is only a number (meta.video_from, as import marks
// it, or the source item's, as a release keeps it in source_meta) is
// refused by both exports unless it has a video_path; every other item
// passes.
func TestUnnamedVideos(t *testing.T) {
	t.Parallel()
	item := func(id, video, path, meta string) *harness.Item {
		return &harness.Item{ID: id, Benchmark: "b", Video: video, VideoPath: path, Question: "q?", Options: []string{"a", "b"}, Meta: json.RawMessage(meta)}
	}
	for _, c := range []struct {
		name  string
		items []*harness.Item
		want  string // "" when accepted
	}{
		{"videoID", []*harness.Item{item("001-1", "fFjv93ACGo8", "", `{"video_id":"001"}`)}, ""},
		{"numeric but a file name (NExT-QA)", []*harness.Item{item("6", "4010069381", "", "")}, ""},
		{"number, marked", []*harness.Item{item("001-1", "001", "", `{"video_from":"the question id"}`), item("002-1", "fFjv93ACGo8", "", "")}, `1 of 2 items name their video only by a number (item 001-1: video "001", from the question id)`},
		{"number, in source_meta", []*harness.Item{item("v/001-1", "001", "", `{"source":"v","source_meta":{"video_from":"video_id, a video number"}}`)}, `1 of 1 items name their video only by a number (item v/001-1: video "001", from video_id, a video number)`},
		{"number with a video_path", []*harness.Item{item("001-1", "001", "data/fFjv93ACGo8.mp4", `{"video_from":"the question id"}`)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := &release.Release{Name: "r", Lockfile: &release.Lockfile{Release: "r"}, Items: c.items}
			_, lerr := NewLMMSEval(r, t.TempDir())
			_, verr := VLMEvalKitTable(context.Background(), r)
			for _, err := range []error{lerr, verr} {
				switch {
				case c.want == "" && err != nil:
					t.Errorf("refused: %v", err)
				case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--items-from") || !errors.Is(err, harness.ErrBadInput)):
					t.Errorf("got %v, want bad input saying %q and naming --items-from", err, c.want)
				}
			}
		})
	}
}
