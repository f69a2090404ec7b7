package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// The layouts lmms-eval's save_results_samples (loggers/evaluation_tracker.py)
// wrote since v0.4, as the tests write them:
//
//   - v0.4-v0.6: <YYYYmmdd_HHMMSS>_samples_<task>.jsonl without doc and
//     arguments (and without resps when they equal the filtered reply):
//     doc_id, target (str), filtered_resps (one entry per request),
//     doc_hash, input (the first request's prompt) and the task's metric
//     object. Video-MME's (tasks/videomme/utils.py, videomme_process_results)
//     is videomme_perception_score: question_id, duration, category,
//     sub_category, task_category, pred_answer (its extract_characters_regex
//     of the reply, "" when it finds no letter), answer; since v0.6 also
//     score and videoID.
//   - v0.7+: the same, with filtered_resps unwrapped to the bare reply when
//     a document has one request.

// videommePrompt is videomme_doc_to_text with the llava_vid post prompt.
func videommePrompt(question string, options ...string) string {
	return "Select the best answer to the following multiple-choice question based on the video and the subtitles. Respond with only the letter (A, B, C, or D) of the correct option.\n" +
		question + "\n" + strings.Join(options, "\n") + "\nThe best answer is:"
}

func jsonLine(t testing.TB, m map[string]any) string {
	t.Helper()
	var b bytes.Buffer
	e := jsonEncoder(&b)
	if err := e.Encode(m); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lmmsV04 is a v0.4-0.5 Video-MME log: no doc, no videoID in the metric
// object; the second reply is one of the "!!!!" a model writes when its
// generation breaks, which the task parses as "".
func lmmsV04(t testing.TB) string {
	return jsonLine(t, map[string]any{
		"doc_id": 0, "target": "C", "filtered_resps": []any{"C"}, "doc_hash": "4f1c",
		"input":                     "<image>\n" + videommePrompt("How many apples are on the tree?", "A. One.", "B. Two.", "C. Three.", "D. Four."),
		"videomme_perception_score": map[string]any{"question_id": "001-1", "duration": "short", "category": "Knowledge", "sub_category": "Humanity & History", "task_category": "Counting Problem", "pred_answer": "C", "answer": "C"},
	}) + jsonLine(t, map[string]any{
		"doc_id": 1, "target": "A", "filtered_resps": []any{"!!!!!!!!!!!!!!!!"}, "resps": []any{[]any{"!!!!!!!!!!!!!!!!\n"}}, "doc_hash": "1e2d",
		"input":                     "<image>\n" + videommePrompt("What is the genre of this video?", "A. A news report.", "B. A documentary.", "C. A travel vlog.", "D. A tutorial."),
		"videomme_perception_score": map[string]any{"question_id": "001-2", "duration": "short", "category": "Knowledge", "sub_category": "Humanity & History", "task_category": "Object Recognition", "pred_answer": "", "answer": "A"},
	})
}

// lmmsV07 is a v0.7 Video-MME log: filtered_resps a bare string, videoID
// in the metric object, a reply the task parsed differently from its text
// ("The answer is B" with pred_answer B).
func lmmsV07(t testing.TB) string {
	return jsonLine(t, map[string]any{
		"doc_id": 0, "target": "B", "filtered_resps": "The answer is B.", "doc_hash": "aa01",
		"input":                     "Which planet appears first?\nOptions:\nA. Mars.\nB. Venus.\nC. Saturn.\nD. Earth.\nAnswer with the option's letter from the given choices directly.",
		"videomme_perception_score": map[string]any{"question_id": "002-1", "duration": "medium", "category": "Knowledge", "sub_category": "Astronomy", "task_category": "Temporal Perception", "pred_answer": "B", "answer": "B", "score": 1.0, "videoID": "zzzzzzzzzzz"},
	}) + jsonLine(t, map[string]any{
		"doc_id": 1, "target": "D", "filtered_resps": "A", "doc_hash": "aa02",
		"input":                     "Which planet appears last?\nOptions:\nA. Mars.\nB. Venus.\nC. Saturn.\nD. Earth.\nAnswer with the option's letter from the given choices directly.",
		"videomme_perception_score": map[string]any{"question_id": "002-2", "duration": "medium", "category": "Knowledge", "sub_category": "Astronomy", "task_category": "Temporal Perception", "pred_answer": "A", "answer": "D", "score": 0.0, "videoID": "zzzzzzzzzzz"},
	})
}

// lmmsGeneric is a v0.7 line of a task without a metric object holding an
// id (a generic multiple-choice task whose metric is a number): the id is
// doc_id, the gold target given as the option's text, and a list of lists
// of replies (several generations per request).
func lmmsGeneric(t testing.TB) string {
	return jsonLine(t, map[string]any{
		"doc_id": 7, "target": "strum the string", "filtered_resps": []any{[]any{"(C) strum the string", "C"}}, "doc_hash": "77",
		"input":       "how do the two man play the instrument\n(A) roll the handle\n(B) tap their feet\n(C) strum the string\nAnswer with the option's letter.",
		"exact_match": 1.0,
	})
}

func TestReadLMMSEvalWithoutDoc(t *testing.T) {
	dir := t.TempDir()
	type want struct {
		id, video, question, task, group, gold, reply string
		options                                       []string
		choice                                        int
		itemsFrom, videoFrom, replyFrom               string
	}
	const metric = "input and videomme_perception_score"
	tests := []struct {
		name, file string
		rows       []want
	}{
		{"v0.4-0.6 without doc", writeFile(t, dir, "20250712_101112_samples_videomme.jsonl", lmmsV04(t)), []want{
			{"001-1", "001", "How many apples are on the tree?", "Counting Problem", "short", "C", "C", []string{"One.", "Two.", "Three.", "Four."}, -1, metric, "the question id", "videomme_perception_score.pred_answer"},
			{"001-2", "001", "What is the genre of this video?", "Object Recognition", "short", "A", "", []string{"A news report.", "A documentary.", "A travel vlog.", "A tutorial."}, -1, metric, "the question id", "videomme_perception_score.pred_answer"},
		}},
		{"v0.7 bare-string replies", writeFile(t, dir, "20251020_080910_samples_videomme.jsonl", lmmsV07(t)), []want{
			{"002-1", "zzzzzzzzzzz", "Which planet appears first?", "Temporal Perception", "medium", "B", "B", []string{"Mars.", "Venus.", "Saturn.", "Earth."}, -1, metric, "", "videomme_perception_score.pred_answer"},
			{"002-2", "zzzzzzzzzzz", "Which planet appears last?", "Temporal Perception", "medium", "D", "A", []string{"Mars.", "Venus.", "Saturn.", "Earth."}, -1, metric, "", "videomme_perception_score.pred_answer"},
		}},
		{"a task without a metric object", writeFile(t, dir, "20251020_080910_samples_nextqa_mc.jsonl", lmmsGeneric(t)), []want{
			{"7", "", "how do the two man play the instrument", "", "", "strum the string", "(C) strum the string", []string{"roll the handle", "tap their feet", "strum the string"}, -1, "input", "", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := ReadLMMSEval(context.Background(), tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tt.rows) {
				t.Fatalf("%d rows, want %d", len(rows), len(tt.rows))
			}
			for i, w := range tt.rows {
				r := rows[i]
				got := want{r.ID, r.Video, r.Question, r.Task, r.DurationGroup, r.Gold, r.Reply, r.Options, r.Choice, r.ItemsFrom, r.VideoFrom, r.ReplyFrom}
				if got.id != w.id || got.video != w.video || got.question != w.question || got.task != w.task || got.group != w.group || got.gold != w.gold || got.reply != w.reply || !slices.Equal(got.options, w.options) || got.choice != w.choice || got.itemsFrom != w.itemsFrom || got.videoFrom != w.videoFrom || got.replyFrom != w.replyFrom {
					t.Errorf("row %d\n got %+v\nwant %+v", i+1, got, w)
				}
				if r.Duration != nil || !r.HasPrediction || r.Line != i+1 || r.Benchmark != TaskName(tt.file) {
					t.Errorf("row %d: duration %v, has prediction %v, line %d, benchmark %q", i+1, r.Duration, r.HasPrediction, r.Line, r.Benchmark)
				}
			}
		})
	}
}

func TestReadLMMSEvalRefusesBadLines(t *testing.T) {
	dir := t.TempDir()
	good := lmmsV07(t)
	tests := []struct {
		name, body, want string
		reason           error
	}{
		{"no input", good + `{"doc_id": 2, "target": "A", "filtered_resps": "A"}` + "\n", ":3: field input: missing field", harness.ErrMissingField},
		{"an input that is not text", good + `{"doc_id": 2, "target": "A", "filtered_resps": "A", "input": ["q"]}` + "\n", ":3: field input: wrong type: got []interface {}", harness.ErrFieldType},
		{"a prompt with one option", `{"doc_id": 0, "target": "A", "filtered_resps": "A", "input": "q?\nA. yes\nAnswer."}` + "\n", ":1: field input: fewer than two options: the prompt holds no run of lettered options", harness.ErrTooFewOptions},
		{"a reply that is a number", `{"doc_id": 0, "target": "A", "filtered_resps": 3, "input": "q?\nA. yes\nB. no"}` + "\n", ":1: field filtered_resps: wrong type: got json.Number", harness.ErrFieldType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadLMMSEval(context.Background(), writeFile(t, dir, "20251020_080910_samples_t.jsonl", tt.body))
			var pe *harness.ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "samples_t.jsonl"+tt.want) || !errors.Is(err, tt.reason) {
				t.Errorf("error %v; want a *ParseError containing %q and wrapping %v", err, tt.want, tt.reason)
			}
		})
	}
}

// TestParsePrompt: the question is the whole text before the lettered
// options, less the template around it. lmms-eval's videomme_doc_to_text
// writes the instruction line, then doc["question"] as it is, so a question
// that spans lines keeps every line, and the instruction (and the subtitle
// preamble above it) is the template's, not the question's.
func TestParsePrompt(t *testing.T) {
	t.Parallel()
	const subtitles = "This video's subtitles are listed below: \n[Music]\nwelcome back to the channel\n"
	for _, tt := range []struct {
		name, in, question string
		options            []string
	}{
		{"Video-MME", videommePrompt("Q?", "A. x", "B. y"), "Q?", []string{"x", "y"}},
		{"Video-MME, a question over two lines", videommePrompt("In the video, the man lists:\n1. flour 2. eggs\nWhat does he add last?", "A. x", "B. y"),
			"In the video, the man lists:\n1. flour 2. eggs\nWhat does he add last?", []string{"x", "y"}},
		{"Video-MME with subtitles", subtitles + videommePrompt("Who speaks\nfirst?", "A. x", "B. y"), "Who speaks\nfirst?", []string{"x", "y"}},
		{"a media token and the instruction", "<image>\n" + videommePrompt("Q?", "A. x", "B. y"), "Q?", []string{"x", "y"}},
		{"qwen3_vl's Question: and Options:", "Question: What is\nshown?\nOptions:\nA. x\nB. y\nC. z\nAnswer with the option letter only.", "What is\nshown?", []string{"x", "y", "z"}},
		{"MVBench's Question: and Option:", "Question:how do they play\nOption:\n(A) roll\n(B) tap\nOnly give the best option.", "how do they play", []string{"roll", "tap"}},
		{"EgoSchema's aria pre_prompt", "Please answer the question about the video:\nWhat is C doing?\nA. cooking\nB. cleaning\nAnswer with the option's letter from the given choices directly.", "What is C doing?", []string{"cooking", "cleaning"}},
		{"vidscreen's export", "You are given a video. Answer the question about it.\n\nwhy did\nthe boy run?\nA. x\nB. y\nAnswer with the option's letter.", "why did\nthe boy run?", []string{"x", "y"}},
		{"an export intro without its blank line is the question's", "You are given a video.\nwhy did he run?\nA. x\nB. y", "You are given a video.\nwhy did he run?", []string{"x", "y"}},
		{"no template: all of it", "pre Q?\nOptions:\nA. x\nB. y\nC. z\nanswer", "pre Q?", []string{"x", "y", "z"}},
		{"an option wrapped onto a second line is whole", "Which?\nA. Apples.\n   Candles, too\nB. Doors\nAnswer with the option's letter.", "Which?", []string{"Apples.\n   Candles, too", "Doors"}},
		{"a question listing lettered lines before the options", "Pick the odd one:\nA. one\nB. two\nWhich is it?\nA. x\nB. y\nC. z\nAnswer.", "Pick the odd one:\nA. one\nB. two\nWhich is it?", []string{"x", "y", "z"}},
		{"vidscreen's export: options run to the post prompt", "You are given a video. Answer the question about it.\n\n  Why?\n\nA. line one\nline two\nB. y \n" + exportPostPrompt, "  Why?\n", []string{"line one\nline two", "y "}},
		{"a first A. line alone is the question's", "A. lone\nQ?\nA. x\nB. y", "A. lone\nQ?", []string{"x", "y"}},
		{"no options", "no options here", "", nil},
	} {
		q, opts, err := parsePrompt(tt.in)
		if err != nil || q != tt.question || !slices.Equal(opts, tt.options) {
			t.Errorf("%s: parsePrompt(%q) = %q, %q, %v; want %q, %q", tt.name, tt.in, q, opts, err, tt.question, tt.options)
		}
	}
}

// TestParsePromptRefusesAmbiguity: a prompt whose lettered lines read two
// ways is refused, not read the first way (issue 33 §2.2).
func TestParsePromptRefusesAmbiguity(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, in, want string }{
		{"a run that skips a letter", "Q?\n(A) x\n(B) y\n(D) w", `line 4 ("(D) w") reads as an option`},
		{"an exported option holding a line that reads as the next option", "You are given a video. Answer the question about it.\n\nQ?\nA. x\nB. inside x\nB. y\n" + exportPostPrompt, `line 6 ("B. y") reads as an option inside the options that start at line 4`},
	} {
		q, opts, err := parsePrompt(tt.in)
		if err == nil || !strings.Contains(err.Error(), "ambiguous options") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: parsePrompt = %q, %q, %v; want an error with %q", tt.name, q, opts, err, tt.want)
		}
	}
}

// FuzzReadLMMSEval feeds the lmms-eval readers (samples JSON Lines and
// v0.2's <task>.json) arbitrary bytes after the layouts of every release: no panic, and what is accepted matches into
// the options.
func FuzzReadLMMSEval(f *testing.F) {
	f.Add([]byte(lmmsV04(f)))
	f.Add([]byte(lmmsV07(f)))
	f.Add([]byte(lmmsGeneric(f)))
	f.Add([]byte(lmmsV02(f, map[string]any{"question": "q", "options": []any{"x", "y"}, "answer": 1, "video": "v"})))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := readLMMSEvalBytes(context.Background(), data, "fuzz.jsonl", items.NoOptions())
		if err == nil {
			checkRows(t, rows)
		}
	})
}

func jsonEncoder(b *bytes.Buffer) *json.Encoder {
	e := json.NewEncoder(b)
	e.SetEscapeHTML(false)
	return e
}

// lmmsV02 is the <task>.json of lmms-eval v0.2.0-v0.2.3 (__main__.py):
// {"args", "model_configs", "logs": [samples sorted by doc_id], "time"},
// pretty-printed with indent 4, each sample with doc, target, arguments,
// resps and filtered_resps.
func lmmsV02(t testing.TB, secondDoc any) string {
	b, err := json.MarshalIndent(map[string]any{
		"args":          map[string]any{"model": "llava_vid", "tasks": "videomme", "log_samples": true},
		"model_configs": map[string]any{"task": "videomme", "output_type": "generate_until"},
		"time":          "0620_1011",
		"logs": []any{
			map[string]any{"doc_id": 0, "doc": map[string]any{"video_id": "001", "videoID": "fFjv93ACGo8", "duration": "short", "question_id": "001-1", "task_type": "Counting Problem", "question": "How many apples?", "options": []any{"A. One.", "B. Two."}, "answer": "B"}, "target": "B", "arguments": []any{"<image>\nHow many apples?"}, "resps": []any{[]any{"B"}}, "filtered_resps": []any{"B"}},
			map[string]any{"doc_id": 1, "doc": secondDoc, "target": "A", "resps": []any{[]any{"A"}}, "filtered_resps": []any{"A"}},
		},
	}, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestReadLMMSEvalV02TaskJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := map[string]any{"video_id": "002", "videoID": "zzzzzzzzzzz", "duration": 42.5, "question_id": "002-1", "task_type": "Temporal Perception", "question": "What comes first?", "options": []any{"A. A star.", "B. A moon."}, "answer": "A"}
	rows, err := ReadLMMSEval(context.Background(), writeFile(t, dir, "videomme.json", lmmsV02(t, doc)))
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows, error %v", len(rows), err)
	}
	r := rows[1]
	if r.ID != "002-1" || r.Video != "zzzzzzzzzzz" || r.Benchmark != "videomme" || r.Task != "Temporal Perception" || r.Duration == nil || *r.Duration != 42.5 || r.Gold != "A" || r.Reply != "A" || r.ItemsFrom != "doc" || r.Rec != 2 || !strings.HasSuffix(r.Source, "videomme.json: row 2") {
		t.Errorf("row %+v", r)
	}
	if g := rows[0].DurationGroup; g != "short" || rows[0].Duration != nil {
		t.Errorf("duration %v, group %q; want the category kept", rows[0].Duration, g)
	}
	_, err = ReadLMMSEval(context.Background(), writeFile(t, dir, "bad.json", lmmsV02(t, "not a doc")))
	if !errors.Is(err, harness.ErrFieldType) || !strings.Contains(err.Error(), "bad.json: row 2: field doc: wrong type") {
		t.Errorf("error %v; want row 2's doc named", err)
	}
}

func TestTaskName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"logs/m/samples_videomme_2024-06-20T10-11-12.123456.jsonl": "videomme",
		"20250101_120000_samples_mvbench.jsonl":                    "mvbench",
		"results.jsonl":                                            "results",
	} {
		if got := TaskName(in); got != want {
			t.Errorf("TaskName(%q) = %q, want %q", in, got, want)
		}
	}
}
