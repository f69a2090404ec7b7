package formats

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// Lines of today's lmms-eval samples files (v0.7+: no doc, no arguments,
// filtered_resps a bare string for one request, target str(), every
// value inside filtered_resps str()'d by sanitize_list, token_counts per
// request) as the video tasks' own code fills them:
//
//   - egoschema_subset (tasks/egoschema/utils.py): the prompt is the
//     question, the five "A. text" options and the post prompt; the metric
//     objects are submission {video_idx: index} and score {pred: index,
//     ground_truth: answer}, pred being the index its parse chose (at
//     random when it finds no letter); target is the 0-based answer.
//   - egoschema_subset_mcppl: doc_to_text is "question", so the prompt is
//     the bare question; filtered_resps one [log-likelihood, is-greedy]
//     pair per option, as strings; score.pred the option of the lowest
//     log-likelihood (what the task scored).
//   - perceptiontest_val_mc (tasks/perceptiontest/val/utils.py): accuracy
//     {video_name, question, pred_id (-1 for no letter), answer_id,
//     correct, area, reasoning, tag}; target the 0-based answer_id.
//   - longvideobench_val_v: lvb_acc {id, duration_group,
//     question_category, answer (a letter), parsed_pred (a letter)};
//     target the 0-based correct_choice.
//   - mlvu_dev (tasks/mlvu/utils.py): mlvu_percetion_score {question_id
//     (the question's text), task_type, pred_answer, answer}.
const egoPrompt = "How does the woman help c?\nA. she cuts pods\nB. she pours water\nC. she sweeps\nD. she sings\nE. she leaves\nAnswer with the option's letter from the given choices directly."

func TestLMMSEvalTaskMetrics(t *testing.T) {
	type got struct {
		ID, Video, Reply, ReplyFrom string
		Options, Choice, Gold       int
	}
	tokens := []any{map[string]any{"input_tokens": 812, "output_tokens": 1}}
	for _, tc := range []struct {
		name, file string
		lines      []map[string]any
		itemsFrom  bool
		want       []got
	}{
		{"egoschema_subset", "20251020_080910_samples_egoschema_subset.jsonl", []map[string]any{
			{"doc_id": 0, "target": "3", "filtered_resps": "D", "doc_hash": "a1", "input": egoPrompt, "token_counts": tokens,
				"submission": map[string]any{"0074f737-11cb-497d-8d07-77c3a8127391": 3}, "score": map[string]any{"pred": 3, "ground_truth": "3"}},
			// No letter in the reply: the task picked one at random, and
			// scored that pick.
			{"doc_id": 1, "target": "0", "filtered_resps": "I am not sure.", "doc_hash": "a2", "input": egoPrompt, "token_counts": tokens,
				"submission": map[string]any{"001934bb-81bd-4cd8-a574-0472ef3f6678": 4}, "score": map[string]any{"pred": 4, "ground_truth": "0"}},
		}, false, []got{
			{"0074f737-11cb-497d-8d07-77c3a8127391", "0074f737-11cb-497d-8d07-77c3a8127391", "3", "score.pred", 5, 3, 3},
			{"001934bb-81bd-4cd8-a574-0472ef3f6678", "001934bb-81bd-4cd8-a574-0472ef3f6678", "4", "score.pred", 5, 4, 0},
		}},
		{"egoschema_subset_mcppl with --items-from", "20251020_080910_samples_egoschema_subset_mcppl.jsonl", []map[string]any{
			{"doc_id": 0, "target": "3", "doc_hash": "a1", "input": "How does the woman help c?",
				"filtered_resps": []any{[]any{"-14.25", "False"}, []any{"-9.5", "False"}, []any{"-20.0", "False"}, []any{"-11.0", "False"}, []any{"-inf", "False"}},
				"submission":     map[string]any{"0074f737-11cb-497d-8d07-77c3a8127391": 4}, "score": map[string]any{"pred": 4, "ground_truth": "3"}},
		}, true, []got{{"0074f737-11cb-497d-8d07-77c3a8127391", "0074f737-11cb-497d-8d07-77c3a8127391", "4", "score.pred", 0, 4, 3}}},
		{"perceptiontest_val_mc", "20251020_080910_samples_perceptiontest_val_mc.jsonl", []map[string]any{
			{"doc_id": 0, "target": "1", "filtered_resps": "B", "input": "What is in the box?\nA. a cup\nB. a pen\nC. a key\nAnswer with the option's letter from the given choices directly.",
				"accuracy": map[string]any{"video_name": "video_10909", "question": "What is in the box?", "pred_id": 1, "answer_id": 1, "correct": 1, "area": "memory", "reasoning": "descriptive", "tag": []any{"object"}}},
			{"doc_id": 1, "target": "2", "filtered_resps": "The answer is the key", "input": "Who moved?\nA. the man\nB. the dog\nC. the cat\nAnswer with the option's letter from the given choices directly.",
				"accuracy": map[string]any{"video_name": "video_10910", "question": "Who moved?", "pred_id": -1, "answer_id": 2, "correct": 0, "area": "physics", "reasoning": "explanatory", "tag": []any{}}},
		}, false, []got{{"0", "video_10909", "1", "accuracy.pred_id", 3, 1, 1}, {"1", "video_10910", "", "accuracy.pred_id", 3, -1, 2}}},
		{"longvideobench_val_v", "20251020_080910_samples_longvideobench_val_v.jsonl", []map[string]any{
			{"doc_id": 0, "target": "2", "filtered_resps": "C.", "input": "What is worn?\nA. a hat\nB. a scarf\nC. gloves\nAnswer with the option's letter from the given choices directly.\n",
				"lvb_acc": map[string]any{"id": "86CxyhFV9MI_0", "duration_group": 600, "question_category": "TOS", "answer": "C", "parsed_pred": "C"}},
		}, false, []got{{"86CxyhFV9MI_0", "", "C", "lvb_acc.parsed_pred", 3, -1, 2}}},
		{"mlvu_dev: the question's text is no id", "20251020_080910_samples_mlvu_dev.jsonl", []map[string]any{
			{"doc_id": 0, "target": "B", "filtered_resps": "B", "input": "What is the main topic?\n(A) cooking\n(B) sports\n(C) music\n(D) travel\nOnly give the best option.\nBest option: (",
				"mlvu_percetion_score": map[string]any{"question_id": "What is the main topic?\n(A) cooking\n(B) sports\n(C) music\n(D) travel", "task_type": "topic_reasoning", "pred_answer": "B", "answer": "B"}},
			{"doc_id": 1, "target": "D", "filtered_resps": "A", "input": "What is the main topic?\n(A) news\n(B) games\n(C) pets\n(D) art\nOnly give the best option.\nBest option: (",
				"mlvu_percetion_score": map[string]any{"question_id": "What is the main topic?\n(A) news\n(B) games\n(C) pets\n(D) art", "task_type": "topic_reasoning", "pred_answer": "A", "answer": "D"}},
		}, false, []got{{"0", "", "B", "mlvu_percetion_score.pred_answer", 4, -1, -1}, {"1", "", "A", "mlvu_percetion_score.pred_answer", 4, -1, -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := ""
			for _, l := range tc.lines {
				body += jsonLine(t, l)
			}
			p := writeFile(t, t.TempDir(), tc.file, body)
			opt := items.NoOptions()
			opt.ItemsFrom = tc.itemsFrom
			res, err := LMMSEval().Read(context.Background(), []string{p}, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, res.Rows)
			var rows []got
			for _, r := range res.Rows {
				rows = append(rows, got{r.ID, r.Video, r.Reply, r.ReplyFrom, len(r.Options), r.Choice, r.GoldIndex})
				if !r.HasPrediction {
					t.Errorf("%s: no prediction", r.Source)
				}
			}
			if !reflect.DeepEqual(rows, tc.want) {
				t.Errorf("rows\n got %+v\nwant %+v", rows, tc.want)
			}
		})
	}
}

// TestLMMSEvalStringLogLikelihoods: sanitize_list writes each pair's
// values as str(): the best of ["-9.5", "False"] and the rest is read, not
// the first string taken for a generated reply.
func TestLMMSEvalStringLogLikelihoods(t *testing.T) {
	line := jsonLine(t, map[string]any{"doc_id": 0, "target": "B", "input": "Which?\nA. x\nB. y\nC. z",
		"filtered_resps": []any{[]any{"-14.25", "False"}, []any{"-9.5", "True"}, []any{"-20.0", "False"}}})
	rows, err := ReadLMMSEval(context.Background(), writeFile(t, t.TempDir(), "20251020_080910_samples_t.jsonl", line))
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Choice != 1 || rows[0].Reply != "" {
		t.Errorf("choice %d, reply %q; want the best log-likelihood, option 1", rows[0].Choice, rows[0].Reply)
	}
	// A bare question without --items-from says where the options are.
	bare := jsonLine(t, map[string]any{"doc_id": 0, "target": "3", "input": "How does the woman help c?",
		"filtered_resps": []any{[]any{"-14.25", "False"}, []any{"-9.5", "False"}}})
	p := writeFile(t, t.TempDir(), "20251020_080910_samples_egoschema_subset_mcppl.jsonl", bare)
	_, err = ReadLMMSEval(context.Background(), p)
	var pe *harness.ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || pe.Field != "input" || !errors.Is(err, harness.ErrTooFewOptions) || !strings.Contains(err.Error(), "--items-from") {
		t.Errorf("error %v; want line 1, field input, too few options, naming --items-from", err)
	}
}

// TestLMMSEvalResultsFileNamed: the aggregated results beside the samples
// (save_results_aggregated's <date_id>_results.json: results, configs,
// versions, ...) is named, and the samples file asked for.
func TestLMMSEvalResultsFileNamed(t *testing.T) {
	t.Parallel()
	p := writeFile(t, t.TempDir(), "20251020_080910_results.json", `{
  "results": {"videomme": {"alias": "videomme", "videomme_perception_score,none": 61.2}},
  "configs": {"videomme": {"task": "videomme", "dataset_path": "lmms-eval/Video-MME"}},
  "versions": {"videomme": "Yaml"}
}
`)
	_, err := ReadLMMSEval(context.Background(), p)
	var pe *harness.ParseError
	if !errors.As(err, &pe) || pe.Line != 1 || !errors.Is(err, harness.ErrNotAFile) || !strings.Contains(err.Error(), "_samples_<task>.jsonl") {
		t.Errorf("error %v; want line 1 naming the samples file", err)
	}
}
