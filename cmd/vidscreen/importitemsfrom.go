package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
)

// joinItemsFrom takes each row's item from an items file (--items-from:
// what `vidscreen import` wrote from the benchmark's own annotation file),
// keeping the row's reply: for lmms-eval logs since v0.4, which hold the
// prompt and the reply but not the benchmark's record. A row joins the
// item with its id (lmms-eval's question_id), else the item at its doc_id
// (lmms-eval's position in the dataset split, 0-based, which is the
// order import writes). ItemsFrom says which.
func joinItemsFrom(ctx context.Context, path string, rows []items.Row) error {
	its, err := harness.ReadFiles(ctx, []string{path}, harness.ReadOptions{})
	if err != nil {
		return err
	}
	byID := map[string]*harness.Item{}
	for _, it := range its {
		byID[it.ID] = it
	}
	for i := range rows {
		r := &rows[i]
		it, by := byID[r.ID], "id"
		if it == nil && r.DocID != "" {
			if n, err := strconv.Atoi(r.DocID); err == nil && n >= 0 && n < len(its) {
				it, by = its[n], "doc_id"
			}
		}
		if it == nil {
			return &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: "id",
				Err: fmt.Errorf("%w: no item of %s has id %q or is at doc_id %q", harness.ErrUnknownItem, path, r.ID, r.DocID)}
		}
		if len(r.Options) > 0 && len(r.Options) != len(it.Options) {
			return &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: "id",
				Err: fmt.Errorf("%w: the record has %d options, its item in %s (by %s) %d: not the same question", harness.ErrUnknownItem, len(r.Options), path, by, len(it.Options))}
		}
		// A log-likelihood task scores each option once: more or fewer
		// scores, or a choice past the item's options, is another
		// question's log.
		if r.Scores > 0 && r.Scores != len(it.Options) || r.Choice >= len(it.Options) {
			return &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: "filtered_resps",
				Err: fmt.Errorf("%w: the record scores %d options and chose option %d, its item in %s (by %s) has %d options: not the same question", harness.ErrAnswerRange, r.Scores, r.Choice, path, by, len(it.Options))}
		}
		if r.Question != "" && answer.Normalize(r.Question) != answer.Normalize(it.Question) {
			return &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: "id",
				Err: fmt.Errorf("%w: the record asks %q, its item in %s (by %s) %q: not the same question", harness.ErrUnknownItem, r.Question, path, by, it.Question)}
		}
		if len(it.Meta) > 0 {
			var meta map[string]any
			if err := json.Unmarshal(it.Meta, &meta); err == nil {
				r.Meta = meta
			}
		}
		r.ID, r.Video, r.VideoPath, r.Question, r.Options, r.Task, r.Duration = it.ID, it.Video, it.VideoPath, it.Question, it.Options, it.Task, it.Duration
		r.Group, r.Start, r.End = it.Group, it.Start, it.End
		r.Gold, r.GoldIndex = "", it.Answer
		r.VideoFrom, r.DurationGroup = "", it.DurationCategory
		r.ItemsFrom = fmt.Sprintf("--items-from %s (joined by %s)", path, by)
	}
	return nil
}
