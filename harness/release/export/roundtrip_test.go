package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/formats"
	"github.com/vidscreen/vidscreen/harness/release"
)

// hardRelease is testRelease with the items a samples log read wrong
// (issue 33 §2.2: 16 of 30 items): options holding a line break, one that
// reads as the next option, a question listing lettered lines, a question
// with blank lines and surrounding spaces.
func hardRelease(t *testing.T) *release.Release {
	t.Helper()
	r := testRelease(t)
	add := func(id, q string, opts []string, ans int) {
		r.Items = append(r.Items, &harness.Item{ID: id, Benchmark: r.Name, Video: "v_" + id, Question: q, Options: opts, Answer: ans, Task: "t", Group: "perception"})
	}
	add("wrapped", "What is on the table?", []string{"Apples.\nCandles, and a lamp.", "Doors.", "Eggs.\n  (two)"}, 0)
	add("lettered-question", "The man lists:\nA. flour\nB. eggs\nWhich does he add last?", []string{"flour", "eggs", "milk"}, 1)
	add("option-reads-as-next", "Which?", []string{"first\nB. not an option", "second"}, 1)
	add("blank-lines", "  Look closely.\n\nWhat happens next?  ", []string{"x", "y"}, 0)
	add("question-with-options-line", "Which colour?\nOptions:", []string{"red", "B. blue"}, 1)
	add("colon-letters", "Rank them:\nA: high\nB: low", []string{"A: high", "B: low", "neither"}, 2)
	return r
}

// samplesLine is one line of the samples log lmms-eval (v0.4 on) writes
// for the video task of the export: the prompt utils.doc_to_text makes
// (intro, blank line, question, "A. " + each option, post prompt), the
// target, the reply and, under each metric, the record
// utils.process_results makes; old is a record as exports before the
// question and options went into it wrote it.
func samplesLine(t *testing.T, k int, d document, reply string, old bool) string {
	t.Helper()
	lines := []string{tasks[0].Intro, "", d.Question}
	for j, o := range d.Options {
		lines = append(lines, answer.Letter(j)+". "+o)
	}
	lines = append(lines, PostPrompt)
	rec := map[string]any{"question_id": d.ItemID, "video": d.Video, "task": d.Task, "duration": d.Duration, "group": d.Group,
		"order_index": 0, "pred_answer": reply, "answer": d.Answer, "score": 0.0}
	if !old {
		rec["question"], rec["options"] = d.Question, d.Options
	}
	b, err := json.Marshal(map[string]any{"doc_id": k, "target": d.Answer, "filtered_resps": []string{reply}, "resps": [][]string{{reply}},
		"input": strings.Join(lines, "\n"), "doc_hash": "h", "prompt_hash": "p", "target_hash": "t", "accuracy": rec})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestLMMSEvalSamplesRoundTrip exports a release, makes the samples log
// lmms-eval would write from the exported tasks, and imports it: every
// item comes back as it was released. From a log of an older export
// (no question and options in the record), every item comes back exact
// or is refused as ambiguous, never wrong.
func TestLMMSEvalSamplesRoundTrip(t *testing.T) {
	t.Parallel()
	r := hardRelease(t)
	docs, err := documents(r)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	read := func(name, body string) ([]items.Row, error) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := formats.LMMSEval().Read(context.Background(), []string{p}, items.NoOptions())
		if err != nil {
			return nil, err
		}
		return res.Rows, nil
	}
	same := func(row items.Row, it *harness.Item) bool {
		return row.ID == it.ID && row.Video == it.Video && row.Question == it.Question && slices.Equal(row.Options, it.Options) &&
			row.Gold == answer.Letter(it.Answer) && row.Task == it.Task
	}
	var log strings.Builder
	for k, d := range docs {
		log.WriteString(samplesLine(t, k, d, "A", false))
	}
	rows, err := read("20260101_000000_samples_vidscreen_video.jsonl", log.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(r.Items) {
		t.Fatalf("%d rows, want %d", len(rows), len(r.Items))
	}
	for k, it := range r.Items {
		if !same(rows[k], it) {
			t.Errorf("item %s came back as question %q options %q gold %q", it.ID, rows[k].Question, rows[k].Options, rows[k].Gold)
		}
	}
	refused := 0
	for k, d := range docs {
		it := r.Items[k]
		rows, err := read(fmt.Sprintf("%d_samples_old.jsonl", k), samplesLine(t, k, d, "A", true))
		switch {
		case err != nil:
			if !errors.Is(err, harness.ErrBadValue) || !strings.Contains(err.Error(), "ambiguous options") {
				t.Errorf("item %s from an older export: %v; want it exact or refused as ambiguous", it.ID, err)
			}
			refused++
		case !same(rows[0], it):
			t.Errorf("item %s from an older export came back wrong: question %q options %q", it.ID, rows[0].Question, rows[0].Options)
		}
	}
	if refused != 1 {
		t.Errorf("%d items of an older export refused; want 1 (the option that reads as the next)", refused)
	}
}
