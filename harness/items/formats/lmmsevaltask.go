package formats

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
)

// LMMSEvalTask reads the local dataset of the lmms-eval task directory
// `vidscreen select --export-lmms-eval` writes (dataset.jsonl: one document
// per released item), so that an exported release imports back as the
// items it was made of.
func LMMSEvalTask() items.Format {
	return items.Format{
		Name:   "lmms-eval-task",
		Title:  "lmms-eval task directory of a vidscreen release",
		Files:  "dataset.jsonl of the task directory vidscreen select --export-lmms-eval wrote",
		Detect: detectLMMSEvalTask,
		Read:   readLMMSEvalTask,
	}
}

// taskDocument is one line of the dataset file, as package
// harness/release/export writes it. Pointers tell a missing key from an
// empty value.
type taskDocument struct {
	ItemID      *string         `json:"item_id"`
	Release     *string         `json:"vidscreen_release"`
	Video       *string         `json:"video"`
	VideoPath   string          `json:"video_path"`
	Question    *string         `json:"question"`
	Options     []string        `json:"options"`
	Answer      string          `json:"answer"`
	AnswerIndex *int            `json:"answer_index"`
	Task        string          `json:"task"`
	Group       string          `json:"group"`
	Duration    *float64        `json:"duration"`
	Start       *float64        `json:"start"`
	End         *float64        `json:"end"`
	BlindOrders json.RawMessage `json:"blind_orders"`
	Meta        string          `json:"meta"`

	// DurationCategory is absent from exports before duration_category.
	DurationCategory string `json:"duration_category"`
}

// detectLMMSEvalTask claims a JSON Lines file whose first record is an
// exported document: it opens with item_id and names its release.
func detectLMMSEvalTask(_ string, head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	first, _, _ := bytes.Cut(head, []byte("\n"))
	return bytes.HasPrefix(first, []byte(`{"item_id":`)) && bytes.Contains(first, []byte(`"vidscreen_release":`))
}

func readLMMSEvalTask(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	res := &items.Result{}
	for _, path := range paths {
		if err := readTaskFile(ctx, path, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func readTaskFile(ctx context.Context, path string, res *items.Result) error {
	f, err := os.Open(path)
	if err != nil {
		return &harness.ParseError{File: path, Err: fmt.Errorf("%w: %v", harness.ErrNotAFile, err)}
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	n := 0
	for line := 1; ; line++ {
		if line%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			if line == 1 {
				b = bytes.TrimPrefix(b, []byte("\ufeff"))
			}
			row, perr := taskRow(b, path, line)
			if perr != nil {
				return perr
			}
			res.Rows = append(res.Rows, row)
			n++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return &harness.ParseError{File: path, Line: line, Err: fmt.Errorf("%w: %v", harness.ErrSyntax, err)}
		}
	}
	if n == 0 {
		return &harness.ParseError{File: path, Err: fmt.Errorf("%w: the file holds no document", harness.ErrNoItems)}
	}
	return nil
}

// taskRow reads one document; every error names the file, the line and
// the field.
func taskRow(b []byte, path string, line int) (items.Row, error) {
	fail := func(field string, reason error, format string, args ...any) error {
		return &harness.ParseError{File: path, Line: line, Field: field, Err: fmt.Errorf("%w: %s", reason, fmt.Sprintf(format, args...))}
	}
	var d taskDocument
	if err := json.Unmarshal(b, &d); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return items.Row{}, fail(te.Field, harness.ErrFieldType, "got a JSON %s, want a %s", te.Value, te.Type)
		}
		return items.Row{}, fail("", harness.ErrSyntax, "%v", err)
	}
	for _, req := range []struct {
		field string
		v     *string
	}{{"item_id", d.ItemID}, {"vidscreen_release", d.Release}, {"video", d.Video}, {"question", d.Question}} {
		if req.v == nil || strings.TrimSpace(*req.v) == "" {
			return items.Row{}, fail(req.field, harness.ErrMissingField, "an exported document gives it")
		}
	}
	if d.AnswerIndex == nil {
		return items.Row{}, fail("answer_index", harness.ErrMissingField, "an exported document gives it")
	}
	if k := *d.AnswerIndex; k < 0 || k >= len(d.Options) {
		return items.Row{}, fail("answer_index", harness.ErrAnswerRange, "%d for %d options", k, len(d.Options))
	}
	if l := answer.Letter(*d.AnswerIndex); d.Answer != l {
		return items.Row{}, fail("answer", harness.ErrBadValue, "%q, but answer_index %d is %s", d.Answer, *d.AnswerIndex, l)
	}
	row := items.Row{Source: fmt.Sprintf("%s:%d", path, line), File: path, Line: line,
		ID: *d.ItemID, Benchmark: *d.Release, Video: *d.Video, VideoPath: d.VideoPath, Question: *d.Question, Options: d.Options,
		Task: d.Task, Group: d.Group, Duration: d.Duration, DurationGroup: d.DurationCategory, Start: d.Start, End: d.End,
		Gold: d.Answer, GoldIndex: *d.AnswerIndex, Choice: -1}
	if d.Meta != "" {
		dec := json.NewDecoder(strings.NewReader(d.Meta))
		dec.UseNumber()
		if err := dec.Decode(&row.Meta); err != nil || row.Meta == nil {
			return items.Row{}, fail("meta", harness.ErrFieldType, "want a JSON object in a string, got %q", d.Meta)
		}
	}
	return row, nil
}
