package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
)

// VideoFromKey is the meta key import writes on an item whose file named
// its video only by a number (Video-MME's video_id "001", or the number
// in its question id "001-1"), not by the video file's name (videoID,
// "fFjv93ACGo8", which lmms-eval's videomme utils.py opens as
// data/<videoID>.mp4). Its value says where import took the number from.
const VideoFromKey = "video_from"

// unnamedVideos refuses a release holding items whose video is such a
// number and that have no video_path: an exported task would look for
// <root>/001 and find nothing, and a path built from the number would not
// exist either. It names the count and the first items, and the fix.
func unnamedVideos(r *release.Release) error {
	var ids []string
	var from, video string
	for _, it := range r.Items {
		if f := videoFrom(it); f != "" && it.VideoPath == "" {
			if ids == nil {
				from, video = f, it.Video
			}
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	shown := ids
	if len(shown) > 5 {
		shown = shown[:5]
	}
	return fmt.Errorf("%d of %d items name their video only by a number (item %s: video %q, from %s), not by the video file's name: an exported task could not find them. "+
		"Import the benchmark's own annotation file (Video-MME: videomme/test-00000-of-00001.parquet, whose videoID names each file), re-import the log with --items-from those items, and run the audit again (%w)",
		len(ids), len(r.Items), strings.Join(shown, ", "), video, from, harness.ErrBadInput)
}

// videoFrom is the item's meta.video_from, or that of the source item a
// release keeps as meta.source_meta (release.register); "" when neither
// has one.
func videoFrom(it *harness.Item) string {
	meta := it.Meta
	for range 2 {
		var m map[string]json.RawMessage
		if len(meta) == 0 || json.Unmarshal(meta, &m) != nil {
			return ""
		}
		var s string
		if json.Unmarshal(m[VideoFromKey], &s) == nil && s != "" {
			return s
		}
		meta = m["source_meta"]
	}
	return ""
}
