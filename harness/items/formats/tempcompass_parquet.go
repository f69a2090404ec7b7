package formats

import (
	"context"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// TempCompass's questions also come as the Parquet tables of the dataset
// lmms-eval's tempcompass tasks load (lmms-eval/TempCompass, one config per
// task type: multi-choice/, yes_no/, caption_matching/, captioning/, each
// test-00000-of-00001.parquet), one row per question with the fields
// lmms_eval/tasks/tempcompass/utils.py reads: video_id (the video file
// without .mp4), question (the options inside it, as in the json), answer
// and dim (the temporal dimension). A row is read as the json's question
// is; its place n in the id <type>/<video>/<dim>/<n> counts the rows of
// that video and dimension in table order, the json's list order.

// tempCompassColumns are the columns such a table has.
var tempCompassColumns = []string{"video_id", "question", "answer", "dim"}

func detectTempCompassParquet(path string) bool {
	cols, _, err := records.ParquetColumns(path)
	if err != nil {
		return false
	}
	for _, c := range tempCompassColumns {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

func readTempCompassParquet(ctx context.Context, path string, res *items.Result) error {
	recs, err := records.ReadParquet(ctx, path)
	if err != nil {
		return err
	}
	place := map[[2]string]int{}
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return err
		}
		video, err := rec.Text("video_id", true)
		if err != nil {
			return err
		}
		dim, err := rec.Filled("dim")
		if err != nil {
			return err
		}
		video, dim = strings.TrimSpace(video), strings.TrimSpace(dim)
		key := [2]string{video, dim}
		row, drop, err := tempCompassRow(rec, video, dim, place[key])
		if err != nil {
			return err
		}
		place[key]++
		row.Rec = rec.N
		keep(res, row, drop)
	}
	return nil
}
