package export

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

// VLMEvalKitColumns are the columns of the exported table, in order. index,
// video, question, candidates and answer are what VLMEvalKit's video
// multiple-choice datasets read (video_base.py requires index, video and
// question; videomme.py and mvbench.py read candidates with eval and score
// against answer); question_id keeps the release's item id; video_path is
// the file relative to the video root, as Video-MME's table has it;
// task_type and category (the capability group) are the columns its
// evaluators break scores down by; duration is in seconds, else the
// item's duration category.
var VLMEvalKitColumns = []string{"index", "question_id", "video", "video_path", "question", "candidates", "answer", "task_type", "category", "duration"}

// VLMEvalKitDatasetFile is the Python file written beside the table: the
// video multiple-choice dataset class VLMEvalKit lacks. VLMEvalKit finds a
// dataset only among the classes vlmeval/dataset/__init__.py lists, and
// turns an unknown LMUData/NAME.tsv into an image or text dataset, never a
// video one (build_dataset, vlmeval/dataset/__init__.py), so `run.py --data
// NAME` needs this class once: copied into vlmeval/dataset/ and registered
// by one line appended to its __init__.py (the file's docstring, and
// docs/select.md, give the two shell commands). It then serves every
// LMUData table whose header is VLMEvalKitColumns, by its file name.
const VLMEvalKitDatasetFile = "vidscreen_vlmeval.py"

//go:embed vidscreen_vlmeval.py
var vlmevalkitDataset []byte

// VLMEvalKit writes r's items to path as a VLMEvalKit video MCQ table
// (tab-separated, a header row, then one row per item in release order):
// candidates are the option texts as a Python list literal, answer the
// gold's letter (A for the first candidate). A blank cell is a field the
// item does not have. Beside it goes VLMEvalKitDatasetFile, the dataset
// class that lets VLMEvalKit's run.py read the table by its name.
func VLMEvalKit(ctx context.Context, r *release.Release, path string) error {
	data, err := VLMEvalKitTable(ctx, r)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(path, data); err != nil {
		return fmt.Errorf("VLMEvalKit export: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(filepath.Dir(path), VLMEvalKitDatasetFile), vlmevalkitDataset); err != nil {
		return fmt.Errorf("VLMEvalKit export: %w", err)
	}
	return nil
}

// VLMEvalKitTable is the table VLMEvalKit writes, as bytes.
func VLMEvalKitTable(ctx context.Context, r *release.Release) ([]byte, error) {
	if err := unnamedVideos(r); err != nil {
		return nil, fmt.Errorf("VLMEvalKit export: %w", err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = '\t'
	if err := w.Write(VLMEvalKitColumns); err != nil {
		return nil, err
	}
	for k, it := range r.Items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(it.Options) > answer.MaxOptions || it.Answer < 0 || it.Answer >= len(it.Options) {
			return nil, fmt.Errorf("VLMEvalKit export: item %s: %d options, answer %d: not a released item", it.ID, len(it.Options), it.Answer)
		}
		// VLMEvalKit's Video-MME table holds the category in duration
		// (short/medium/long), which its import reads back as one.
		duration := it.DurationCategory
		if it.Duration != nil {
			duration = strconv.FormatFloat(*it.Duration, 'f', -1, 64)
		}
		row := []string{strconv.Itoa(k), it.ID, it.Video, it.VideoPath, it.Question, pyList(it.Options),
			answer.Letter(it.Answer), it.Task, it.Group, duration}
		if err := w.Write(row); err != nil {
			return nil, fmt.Errorf("VLMEvalKit export: item %s: %w", it.ID, err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("VLMEvalKit export: %w", err)
	}
	return b.Bytes(), nil
}
