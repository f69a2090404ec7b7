package formats

import (
	"fmt"
	"path"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// VLMEvalKit's video datasets that build their TSV from the benchmark's
// own task files (vlmeval/dataset/mvbench.py's MVBench and MVBench_MP4,
// mlvu.py's MLVU_MCQ) keep the video's folder apart: a prefix column
// ("video/star/Charades_v1_480/", "./MLVU/video/1_plotQA") beside the
// video's name, the file being os.path.join(data_root, prefix, video).
// MVBench's also carries its clip bounds: bound (True where the question
// is about start..end of the video), start and end in seconds, blank
// (pandas' None) for the other tasks.

// tableVideo is the video of a VLMEvalKit row: <prefix>/<video><suffix>
// where the row has a prefix (TempCompass_MCQ's also a suffix, ".mp4",
// its video being the bare video_id), so that the video is found where
// VLMEvalKit reads it, under the dataset's folder (--videos <dataset
// folder>).
func tableVideo(r items.Record, video string) string {
	prefix := r.Str("prefix")
	if prefix == "" || video == "" {
		return video
	}
	if suffix := r.Str("suffix"); suffix != "" && !strings.HasSuffix(video, suffix) {
		video += suffix
	}
	return strings.TrimPrefix(path.Join(prefix, video), "./")
}

// tableGold reads LongVideoBench's correct_choice (longvideobench.py's
// TSV is lvb_val.json's records, and its evaluate reads the column as
// chr(ord("A") + correct_choice)): a 0-based index, where the row has no
// answer column to say otherwise.
func tableGold(r items.Record, row *items.Row) {
	name, v, ok := r.First("answer", "correct_choice")
	if !ok || name != "correct_choice" {
		return
	}
	if s, _ := items.Text(v); isDigitsText(s) {
		if n, ok := items.Integer(s); ok {
			row.GoldIndex = n
		}
	}
}

// tableClip fills the clip bounds of a VLMEvalKit row from start and end
// (both needed; a row whose bound says False keeps none), and the
// duration from them where the row gives none. An end before the start is
// a broken row, as in MVBench's own files.
func tableClip(r items.Record, row *items.Row) error {
	if b := strings.ToLower(r.Str("bound")); b == "false" || b == "0" {
		return nil
	}
	start, end := r.Number("start"), r.Number("end")
	if start == nil || end == nil {
		return nil
	}
	if *end < *start {
		return &harness.ParseError{File: row.File, Line: row.Line, Row: row.Rec, Field: "end", Err: fmt.Errorf("%w: the clip ends (%g s) before it starts (%g s)", harness.ErrBadValue, *end, *start)}
	}
	row.Start, row.End = start, end
	if row.Duration == nil && row.DurationGroup == "" {
		d := *end - *start
		row.Duration = &d
	}
	return nil
}
