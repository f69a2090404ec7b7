package formats

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// VideoMME reads Video-MME's questions as they are published:
//   - lmms-lab/Video-MME's videomme/test-00000-of-00001.parquet, one row
//     per question: video_id (the video's number, "001"), duration (a
//     category: short, medium, long), domain, sub_category, url, videoID
//     (the YouTube id, which names the video file <videoID>.mp4),
//     question_id ("001-1"), task_type, question, options (a list of
//     "A. text") and answer (a letter);
//   - the same records as JSON (an array, or one object per line);
//   - the results file of Video-MME's own evaluation script
//     (evaluation/output_test_template.json in BradyFU/Video-MME): one
//     record per video with duration_category, video_category,
//     video_subcategory and its questions (choices instead of options), a
//     model's reply in response.
//
// The options' "A. " letters are removed by the shared rule
// (items.StripLetterPrefixes): "(b)(a)(d)(c)." stays an option's text.
// The duration category is kept as the row's DurationGroup.
func VideoMME() items.Format {
	return items.Format{
		Name:   "videomme",
		Title:  "Video-MME",
		Files:  "videomme/test-00000-of-00001.parquet from lmms-lab/Video-MME, the same records as .json/.jsonl, or a results file of BradyFU/Video-MME's eval_your_results.py",
		Detect: detectVideoMME,
		Read:   readVideoMME,
	}
}

// videommeColumns must all be present for a Parquet file to be Video-MME's.
var videommeColumns = []string{"videoID", "question_id", "question", "options", "answer"}

func detectVideoMME(path string, head []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		cols, _, err := records.ParquetColumns(path)
		if err != nil {
			return false
		}
		for _, c := range videommeColumns {
			if !slices.Contains(cols, c) {
				return false
			}
		}
		return true
	case ".json", ".jsonl":
		h := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\ufeff")))
		if len(h) == 0 || (h[0] != '[' && h[0] != '{') {
			return false
		}
		has := func(k string) bool { return bytes.Contains(h, []byte(`"`+k+`"`)) }
		// lmms-eval's samples (doc_id) and VLMEvalKit's records
		// (candidates, prediction) hold Video-MME's fields too: they are
		// those tools' formats.
		if has("doc_id") || has("candidates") || has("prediction") {
			return false
		}
		return has("question_id") && (has("options") || has("choices")) &&
			(has("videoID") || has("duration_category") || has("video_category"))
	}
	return false
}

// A videommeQuestion is one question, from whichever form of the file.
type videommeQuestion struct {
	source        string
	file          string
	line, rec     int
	videoID       string // the file's name; "" when the form gives none
	videoNumber   string // video_id, "001"
	duration      string // short, medium, long
	domain        string
	subCategory   string
	url           string
	questionID    string
	taskType      string
	question      string
	options       []string
	answer        string
	response      string
	hasPrediction bool
	// fail builds a *harness.ParseError for one of its fields.
	fail func(field string, reason error, format string, args ...any) error
}

func readVideoMME(ctx context.Context, paths []string, opt items.Options) (*items.Result, error) {
	res := &items.Result{}
	seen := map[string]string{}
	// Video-MME's answer is a letter: a digit is read only as the user's
	// --index-base says.
	base := opt.Base(-1)
	add := func(q videommeQuestion) error {
		row, drop, err := videommeRow(q, base)
		if err != nil {
			return err
		}
		if prev, dup := seen[row.ID]; dup {
			return q.fail("question_id", harness.ErrDuplicateID, "%q is also %s", row.ID, prev)
		}
		seen[row.ID] = row.Source
		if drop != nil {
			res.Dropped = append(res.Dropped, *drop)
			return nil
		}
		res.Rows = append(res.Rows, row)
		return nil
	}
	for _, p := range paths {
		var err error
		if strings.EqualFold(filepath.Ext(p), ".parquet") {
			err = readVideoMMEParquet(ctx, p, add)
		} else {
			err = readVideoMMEJSON(ctx, p, add)
		}
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// readVideoMMEParquet reads lmms-lab/Video-MME's table: its rows are the
// flat question records of the JSON form, read the same way.
func readVideoMMEParquet(ctx context.Context, name string, add func(videommeQuestion) error) error {
	cols, lists, err := records.ParquetColumns(name)
	if err != nil {
		return err
	}
	for _, c := range videommeColumns {
		if !slices.Contains(cols, c) {
			return &harness.ParseError{File: name, Field: c, Err: fmt.Errorf("%w: no column %s (lmms-lab/Video-MME's columns are video_id, duration, domain, sub_category, url, videoID, question_id, task_type, question, options, answer)", harness.ErrMissingField, c)}
		}
	}
	if !lists["options"] {
		return &harness.ParseError{File: name, Field: "options", Err: fmt.Errorf("%w: the column is not a list", harness.ErrFieldType)}
	}
	recs, err := records.ReadParquet(ctx, name)
	if err != nil {
		return err
	}
	return addVideoMMERecords(ctx, recs, add)
}

// readVideoMMEJSON reads a JSON array, or JSON lines, of flat question
// records or of the evaluation script's per-video records.
func readVideoMMEJSON(ctx context.Context, name string, add func(videommeQuestion) error) error {
	head, err := items.Head(name)
	if err != nil {
		return err
	}
	var recs []*records.Record
	if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		recs, err = records.Lines(ctx, name)
	} else {
		recs, err = records.Array(ctx, name, "Video-MME's questions")
	}
	if err != nil {
		return err
	}
	return addVideoMMERecords(ctx, recs, add)
}

// addVideoMMERecords adds the questions of flat question records and of
// the evaluation script's per-video records.
func addVideoMMERecords(ctx context.Context, recs []*records.Record, add func(videommeQuestion) error) error {
	for _, rec := range recs {
		if rec.Raw("questions") != nil {
			if err := videommeVideo(ctx, rec, add); err != nil {
				return err
			}
			continue
		}
		q, err := videommeFlat(rec, nil)
		if err != nil {
			return err
		}
		if err := add(q); err != nil {
			return err
		}
	}
	return nil
}

// videommeVideo reads one record of the evaluation script's form: a video
// with its questions.
func videommeVideo(ctx context.Context, rec *records.Record, add func(videommeQuestion) error) error {
	var video videommeQuestion
	var err error
	for _, f := range []struct {
		fields []string
		dst    *string
	}{{[]string{"videoID"}, &video.videoID}, {[]string{"video_id"}, &video.videoNumber}, {[]string{"duration_category", "duration"}, &video.duration},
		{[]string{"video_category", "domain"}, &video.domain}, {[]string{"video_subcategory", "sub_category"}, &video.subCategory}, {[]string{"url"}, &video.url}} {
		if *f.dst, err = firstText(rec, f.fields); err != nil {
			return err
		}
	}
	qs, err := rec.Records("questions")
	if err != nil {
		return err
	}
	for i, sub := range qs {
		if err := ctx.Err(); err != nil {
			return err
		}
		q, err := videommeFlat(sub, &video)
		if err != nil {
			return err
		}
		q.source = fmt.Sprintf("%s: question %d", rec.Source(), i+1)
		if err := add(q); err != nil {
			return err
		}
	}
	return nil
}

// videommeFlat reads a question record; video, when set, holds the
// fields its video record gave.
func videommeFlat(rec *records.Record, video *videommeQuestion) (videommeQuestion, error) {
	q := videommeQuestion{source: rec.Source(), file: rec.File, line: rec.Line, rec: rec.N}
	if video != nil {
		q.videoID, q.videoNumber, q.duration, q.domain, q.subCategory, q.url = video.videoID, video.videoNumber, video.duration, video.domain, video.subCategory, video.url
	}
	q.fail = func(field string, reason error, format string, args ...any) error {
		return rec.Fail(field, reason, format, args...)
	}
	var err error
	for _, f := range []struct {
		fields []string
		dst    *string
	}{{[]string{"videoID"}, &q.videoID}, {[]string{"video_id"}, &q.videoNumber}, {[]string{"duration", "duration_category"}, &q.duration},
		{[]string{"domain", "video_category"}, &q.domain}, {[]string{"sub_category", "video_subcategory"}, &q.subCategory}, {[]string{"url"}, &q.url},
		{[]string{"question_id"}, &q.questionID}, {[]string{"task_type"}, &q.taskType}, {[]string{"question"}, &q.question}, {[]string{"answer"}, &q.answer}} {
		s, err := firstText(rec, f.fields)
		if err != nil {
			return q, err
		}
		if s != "" || video == nil {
			*f.dst = s
		}
	}
	field := "options"
	if rec.Raw(field) == nil {
		field = "choices"
	}
	if q.options, err = rec.Strs(field, true); err != nil {
		return q, err
	}
	if rec.Has("response") {
		if q.response, err = rec.Str("response", false); err != nil {
			return q, err
		}
		q.hasPrediction = true
	}
	return q, nil
}

// firstText returns the first of fields the record has, as a string ("" if
// none); a number (a duration in seconds) is kept as written.
func firstText(rec *records.Record, fields []string) (string, error) {
	for _, f := range fields {
		if rec.Has(f) {
			return rec.Text(f, false)
		}
	}
	return "", nil
}

// videommeRow checks a question and turns it into a row; a gold naming no
// option, or several, makes it an open-ended drop.
func videommeRow(q videommeQuestion, base int) (items.Row, *items.Drop, error) {
	for _, f := range []struct{ field, v string }{{"question_id", q.questionID}, {"question", q.question}} {
		if strings.TrimSpace(f.v) == "" {
			return items.Row{}, nil, q.fail(f.field, harness.ErrMissingField, "no %s", f.field)
		}
	}
	if len(q.options) < 2 {
		return items.Row{}, nil, q.fail("options", harness.ErrTooFewOptions, "%d options", len(q.options))
	}
	opts, _ := items.StripLetterPrefixes(q.options)
	row := items.Row{
		Source:        q.source,
		File:          q.file,
		Line:          q.line,
		Rec:           q.rec,
		ID:            strings.TrimSpace(q.questionID),
		Benchmark:     "Video-MME",
		Video:         strings.TrimSpace(q.videoID),
		Question:      q.question,
		Options:       opts,
		Task:          q.taskType,
		Gold:          strings.TrimSpace(q.answer),
		GoldIndex:     -1,
		Choice:        -1,
		Reply:         q.response,
		HasPrediction: q.hasPrediction,
	}
	if row.Video == "" {
		if q.videoNumber == "" {
			return items.Row{}, nil, q.fail("videoID", harness.ErrMissingField, "no videoID (the video's file name) and no video_id")
		}
		// The evaluation script's results name the video by its number
		// only; the file is <videoID>.mp4, which they do not give.
		row.Video, row.VideoFrom = strings.TrimSpace(q.videoNumber), "video_id (the video's number: the file gives no videoID, the name of the video file)"
	}
	if d, ok := parseSeconds(q.duration); ok {
		row.Duration = &d
	} else {
		row.DurationGroup = strings.TrimSpace(q.duration)
	}
	meta := map[string]any{}
	for _, f := range []struct{ key, v string }{{"video_id", q.videoNumber}, {"domain", q.domain}, {"sub_category", q.subCategory}, {"url", q.url}} {
		if strings.TrimSpace(f.v) != "" {
			meta[f.key] = strings.TrimSpace(f.v)
		}
	}
	if len(meta) > 0 {
		row.Meta = meta
	}
	idx, open, err := items.Gold(row.Gold, row.Options, base)
	if err != nil {
		return items.Row{}, nil, q.fail("answer", err, "the answer is a letter, A to %c", rune('A'+len(row.Options)-1))
	}
	if idx < 0 {
		return row, &items.Drop{Source: row.Source, ID: row.ID, Reason: "open-ended: " + open, OpenEnded: true}, nil
	}
	row.GoldIndex = idx
	return row, nil, nil
}

// parseSeconds reads a duration written as a number of seconds.
func parseSeconds(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
