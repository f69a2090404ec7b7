package formats

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// nextqaDoc is a NExT-QA record as lmms-eval's nextqa_mc task logs it in
// doc (up to v0.3): the benchmark's CSV row, answer a 0-based index.
func nextqaDoc(qid int, a2 any) map[string]any {
	return map[string]any{"video": 4010069381, "frame_count": 369, "question": "how do the two man play the instrument", "answer": 2, "qid": qid, "type": "CH",
		"a0": "roll the handle", "a1": "tap their feet", "a2": a2, "a3": "hit with sticks", "a4": "pat with hand"}
}

// logLikelihoods is filtered_resps of a multiple-choice lmms-eval task:
// one [log-likelihood, is-greedy] pair per option, the best at best.
func logLikelihoods(n, best int) []any {
	out := make([]any, n)
	for i := range out {
		ll := -5.0 - float64(i)
		if i == best {
			ll = -0.5
		}
		out[i] = []any{ll, false}
	}
	return out
}

// TestLMMSEvalDefectsOfRealFiles: each case a defect seen on a real log,
// now an error naming the line and field (or the right reading).
func TestLMMSEvalDefectsOfRealFiles(t *testing.T) {
	dir := t.TempDir()
	sample := func(doc map[string]any, resps any) string {
		return jsonLine(t, map[string]any{"doc_id": 0, "doc": doc, "target": 2, "filtered_resps": resps})
	}
	for _, tt := range []struct {
		name, body, want string
		reason           error
	}{
		{"a0..a4 with a2 missing", sample(nextqaDoc(6, nil), logLikelihoods(5, 2)),
			":1: field doc.a2: missing field: options with a gap: a2 is missing or blank but a4 is given", items.ErrOptionGap},
		{"a0..a4 with a2 blank", sample(nextqaDoc(6, ""), logLikelihoods(5, 2)),
			":1: field doc.a2:", items.ErrOptionGap},
		{"7 log-likelihoods for 5 options", sample(nextqaDoc(6, "strum the string"), logLikelihoods(7, 6)),
			":1: field filtered_resps: answer out of range: 7 log-likelihoods for 5 options", harness.ErrAnswerRange},
		{"3 log-likelihoods for 5 options", sample(nextqaDoc(6, "strum the string"), logLikelihoods(3, 1)),
			":1: field filtered_resps: answer out of range: 3 log-likelihoods for 5 options", harness.ErrAnswerRange},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "samples_nextqa_mc_test_2024-06-20T11-00-00.000001.jsonl", tt.body)
			_, err := ReadLMMSEval(context.Background(), p)
			var pe *harness.ParseError
			if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.reason) {
				t.Errorf("error %v; want line 1 and %q, wrapping %v", err, tt.want, tt.reason)
			}
		})
	}
	// Five for five reads the best.
	p := writeFile(t, dir, "samples_nextqa_mc_test_2024-06-20T11-00-01.000001.jsonl", sample(nextqaDoc(6, "strum the string"), logLikelihoods(5, 2)))
	rows, err := ReadLMMSEval(context.Background(), p)
	if err != nil || rows[0].Choice != 2 || rows[0].GoldIndex != 2 || rows[0].Video != "4010069381" || rows[0].ID != "6" {
		t.Errorf("rows %+v, %v; want choice 2, gold 2, video 4010069381, id 6", rows, err)
	}
}

// TestLMMSEvalVideoMMEVideoID: Video-MME's video_id ("001") numbers the
// video; videoID names the file. With both, videoID is the video; with
// only video_id, the row says the video is a number.
func TestLMMSEvalVideoMMEVideoID(t *testing.T) {
	dir := t.TempDir()
	doc := map[string]any{"video_id": "001", "videoID": "fFjv93ACGo8", "duration": "short", "question_id": "001-1", "task_type": "Counting Problem",
		"question": "How many apples?", "options": []any{"A. One.", "B. Two."}, "answer": "B"}
	numberOnly := map[string]any{"video_id": "002", "duration": "long", "question_id": "002-1", "question": "Who?", "options": []any{"A. He.", "B. She."}, "answer": "A"}
	p := writeFile(t, dir, "samples_videomme_2024-06-20T10-11-12.123456.jsonl",
		jsonLine(t, map[string]any{"doc_id": 0, "doc": doc, "target": "B", "filtered_resps": []any{"B"}})+
			jsonLine(t, map[string]any{"doc_id": 1, "doc": numberOnly, "target": "A", "filtered_resps": []any{"A"}}))
	rows, err := ReadLMMSEval(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Video != "fFjv93ACGo8" || rows[0].VideoFrom != "" || rows[0].DurationGroup != "short" {
		t.Errorf("row 1: video %q (%q), duration group %q; want videoID, short", rows[0].Video, rows[0].VideoFrom, rows[0].DurationGroup)
	}
	if rows[1].Video != "002" || !strings.Contains(rows[1].VideoFrom, "video number") || rows[1].DurationGroup != "long" {
		t.Errorf("row 2: video %q (%q); want 002 said to be a number", rows[1].Video, rows[1].VideoFrom)
	}
}
