package formats

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// NExTGQA reads NExT-GQA (doc-doc/NExT-GQA, datasets/nextgqa/): the
// question tables val.csv and test.csv (video_id, frame_count, width,
// height, question, answer, qid, type, a0..a4, the answer written as the
// text of one option), with, when given among the files,
//   - gsub_val.json / gsub_test.json: per video its duration in seconds
//     and, per qid, the spans [[start, end], ...] where the answer's
//     evidence is: the item's duration, and meta.evidence;
//   - map_vid_vidorID.json: per video id its path in the VidOR folders
//     ("0000/2401167740"), which becomes the item's video.
//
// The id is <split>/<video_id>_<qid> as for NExT-QA, whose subset NExT-GQA
// is (qid numbers the questions within one video); the task is type (CW,
// CH, TN, TC, TP). The evidence spans are not clip bounds: the question is
// about the whole video, and a reader shown only the spans would be told
// where the answer is.
func NExTGQA() items.Format {
	return items.Format{
		Name:   "nextgqa",
		Title:  "NExT-GQA",
		Files:  "val.csv or test.csv, with gsub_val.json / gsub_test.json and map_vid_vidorID.json, from doc-doc/NExT-GQA datasets/nextgqa/",
		Detect: detectNExTGQA,
		Read:   readNExTGQA,
	}
}

var (
	// nextGQASpans opens gsub_*.json: a video id, then its duration and
	// evidence locations.
	nextGQASpans = regexp.MustCompile(`^\s*\{\s*"[0-9]+"\s*:\s*\{\s*"(?:duration|location|fps)"\s*:`)
	// nextGQAMap opens map_vid_vidorID.json: a video id and its path.
	nextGQAMap = regexp.MustCompile(`^\s*\{\s*"[0-9]+"\s*:\s*"[0-9]+/[0-9]+"`)
)

// detectNExTGQA claims the question table by its header (NExT-QA's, but
// with video_id for video) and the two JSON files by their opening.
func detectNExTGQA(path string, head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	if nextGQASpans.Match(head) || nextGQAMap.Match(head) {
		return true
	}
	if !strings.EqualFold(filepath.Ext(path), ".csv") {
		return false
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	cols, err := csv.NewReader(bytes.NewReader(first)).Read()
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, c := range cols {
		have[strings.TrimSpace(c)] = true
	}
	return have["video_id"] && have["qid"] && have["answer"] && have["a0"] && have["a1"] && !have["video"]
}

// nextGQAVideo is what gsub_*.json says of one video.
type nextGQAVideo struct {
	duration *float64
	spans    map[string][][]float64 // by qid
}

func readNExTGQA(ctx context.Context, paths []string, _ items.Options) (*items.Result, error) {
	videos := map[string]*nextGQAVideo{}
	folders := map[string]string{}
	var tables []string
	for _, p := range paths {
		kind, err := nextGQAKind(p)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "spans":
			err = readNExTGQASpans(ctx, p, videos)
		case "map":
			err = readNExTGQAMap(ctx, p, folders)
		default:
			tables = append(tables, p)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(tables) == 0 {
		return nil, &harness.ParseError{File: paths[len(paths)-1], Err: fmt.Errorf("%w: no NExT-GQA question table among the files (a JSON file gives only spans or paths): give val.csv or test.csv with them", harness.ErrNotAFile)}
	}
	res := &items.Result{}
	seen := map[string]string{}
	for _, p := range tables {
		if err := readNExTGQATable(ctx, p, videos, folders, seen, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// nextGQAKind tells the three files apart by their first bytes.
func nextGQAKind(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	head = bytes.TrimPrefix(head[:n], []byte("\ufeff"))
	switch t := bytes.TrimSpace(head); {
	case nextGQAMap.Match(head):
		return "map", nil
	case len(t) > 0 && t[0] == '{':
		return "spans", nil
	}
	return "table", nil
}

// readNExTGQASpans reads gsub_*.json into videos.
func readNExTGQASpans(ctx context.Context, path string, videos map[string]*nextGQAVideo) error {
	return records.EachKey(ctx, path, "an object of videos with their duration and evidence locations (gsub_val.json)", func(a *records.Walker, vid string) error {
		rec, err := a.Record("a video's duration and locations")
		if err != nil {
			return err
		}
		v := &nextGQAVideo{spans: map[string][][]float64{}}
		if v.duration, err = rec.Num("duration"); err != nil {
			return err
		}
		loc, err := rec.Object("location")
		if err != nil {
			return err
		}
		if loc != nil {
			// In key order, so that of two bad entries the same one is
			// always reported.
			for _, qid := range loc.Fields() {
				raw := loc.Raw(qid)
				var spans [][]float64
				if json.Unmarshal(raw, &spans) != nil {
					return loc.Fail(qid, harness.ErrFieldType, "want a list of [start, end] spans, found %s", records.Kind(raw))
				}
				for _, s := range spans {
					if len(s) != 2 || s[0] < 0 || s[1] < s[0] {
						return loc.Fail(qid, harness.ErrBadValue, "a span is [start, end] seconds with start <= end, found %v", s)
					}
				}
				v.spans[qid] = spans
			}
		}
		videos[vid] = v
		return nil
	})
}

// readNExTGQAMap reads map_vid_vidorID.json into folders.
func readNExTGQAMap(ctx context.Context, path string, folders map[string]string) error {
	return records.EachKey(ctx, path, "an object of video ids and their paths (map_vid_vidorID.json)", func(a *records.Walker, vid string) error {
		var p string
		line, err := a.Value(&p)
		if err != nil {
			return err
		}
		if p = strings.TrimSpace(p); p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
			return a.Fail(line, vid, fmt.Errorf("%w: %q is not a path under the video folder", harness.ErrBadValue, p))
		}
		folders[vid] = p
		return nil
	})
}

// readNExTGQATable reads one question table.
func readNExTGQATable(ctx context.Context, path string, videos map[string]*nextGQAVideo, folders, seen map[string]string, res *items.Result) error {
	t, err := records.ReadTable(ctx, path, records.Dialect{Comma: ','})
	if err != nil {
		return err
	}
	for _, c := range []string{"video_id", "question", "answer", "qid", "a0", "a1"} {
		if !t.Has(c) {
			return &harness.ParseError{File: path, Line: 1, Field: c, Err: fmt.Errorf("%w: no column %s (NExT-GQA's header is video_id,frame_count,width,height,question,answer,qid,type,a0,...,a4)", harness.ErrMissingField, c)}
		}
	}
	var optCols []string
	for k := 0; t.Has(fmt.Sprintf("a%d", k)); k++ {
		optCols = append(optCols, fmt.Sprintf("a%d", k))
	}
	split := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	for _, rec := range t.Rows {
		row, drop, err := nextGQARow(rec, split, optCols, videos, folders)
		if err != nil {
			return err
		}
		id, source := row.ID, row.Source
		if drop != nil {
			id, source = drop.ID, drop.Source
		}
		if prev, dup := seen[id]; dup {
			return rec.Fail("qid", harness.ErrDuplicateID, "%q, also at %s (qid numbers the questions of one video: video_id and qid repeat together)", id, prev)
		}
		seen[id] = source
		keep(res, row, drop)
	}
	return nil
}

func nextGQARow(rec *records.Record, split string, optCols []string, videos map[string]*nextGQAVideo, folders map[string]string) (items.Row, *items.Drop, error) {
	fail := rec.Fail
	// Every cell of a table is a string.
	cell := func(name string) string { s, _ := rec.Str(name, false); return strings.TrimSpace(s) }
	vid, qid := cell("video_id"), cell("qid")
	switch {
	case vid == "":
		return items.Row{}, nil, fail("video_id", harness.ErrEmptyField, "no video id")
	case qid == "":
		return items.Row{}, nil, fail("qid", harness.ErrEmptyField, "no question number")
	}
	if _, err := strconv.Atoi(qid); err != nil {
		return items.Row{}, nil, fail("qid", harness.ErrBadValue, "%q is not a question number", qid)
	}
	if cell("question") == "" {
		return items.Row{}, nil, fail("question", harness.ErrEmptyField, "no question")
	}
	id := fmt.Sprintf("%s/%s_%s", split, vid, qid)
	source := rec.Source()
	options := make([]string, len(optCols))
	for k, c := range optCols {
		options[k] = cell(c)
	}
	gold := cell("answer")
	k, why := answerTextIndex(options, gold)
	if k < 0 {
		return items.Row{}, &items.Drop{Source: source, ID: id, Reason: why, OpenEnded: true}, nil
	}
	video := vid
	if p, ok := folders[vid]; ok {
		video = p
	}
	row := items.Row{
		Source:    source,
		File:      rec.File,
		Line:      rec.Line,
		ID:        id,
		Benchmark: "NExT-GQA",
		Video:     video,
		Question:  cell("question"),
		Options:   options,
		Task:      cell("type"),
		Gold:      gold,
		GoldIndex: k,
		Choice:    -1,
	}
	if v, ok := videos[vid]; ok {
		row.Duration = v.duration
		if spans, ok := v.spans[qid]; ok {
			row.Meta = map[string]any{"evidence": spans}
		}
	}
	return row, nil, nil
}
