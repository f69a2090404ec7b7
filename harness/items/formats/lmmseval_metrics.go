package formats

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness/items"
)

// What lmms-eval's video tasks themselves put in a sample line, read from
// their code (lmms_eval/tasks/<task>/utils.py, the task YAML's
// doc_to_target and process_results), so that a log without doc still
// gives the item and the reply the task scored.

// zeroBasedTargets are the tasks whose doc_to_target is the benchmark's
// 0-based option index, logged as str() since v0.4: nextqa_mc_test
// (nextqa_doc_to_target: doc["answer"]), egoschema* (egoschema_doc_to_answer:
// doc["answer"], compared with the reply's index), perceptiontest_*
// (doc["answer_id"], compared with pred_id), longvideobench_*
// (doc_to_target: "correct_choice"). Their digit target is that index; in
// any other task a digit target stays ambiguous (--index-base).
var zeroBasedTargets = regexp.MustCompile(`^(?:nextqa_mc|egoschema|perceptiontest|longvideobench)`)

// taskGold reads a digit gold as the task's 0-based index where the task
// defines it so.
func taskGold(row *items.Row) {
	if row.GoldIndex >= 0 || !zeroBasedTargets.MatchString(row.Benchmark) {
		return
	}
	if n, ok := items.Integer(row.Gold); ok && n >= 0 && isDigitsText(row.Gold) {
		row.GoldIndex = n
	}
}

func isDigitsText(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// taskParse takes the task's own parse of the reply from its metric
// object, where the task logs one, since that is what lmms-eval scored:
//
//   - pred_answer (Video-MME, MLVU: the letter extract_characters_regex
//     found, "" for none; MVBench: the raw reply), a reply to parse;
//   - parsed_pred (LongVideoBench's lvb_acc: the letter its
//     parse_multi_choice_response chose), a reply to parse;
//   - pred_id (PerceptionTest's accuracy: the option index, -1 for none;
//     its mc_ppl variant picks the lowest log-likelihood, and the log
//     says so), the choice itself;
//   - EgoSchema's score: {pred, ground_truth}, the index its parse chose
//     (-1 for none) and the 0-based answer, with submission: {<q_uid>:
//     pred} naming the question and its video.
//
// A choice of -1 is an unparsed reply: Reply is then "" whatever the model
// wrote, so that the accuracy counts it wrong, as the task did.
func taskParse(m map[string]any, metricName string, metric items.Record, row *items.Row) {
	if pa, ok := metric["pred_answer"].(string); ok && row.Choice < 0 {
		setReply(row, metricName+".pred_answer", strings.TrimSpace(pa))
		return
	}
	if pp, ok := metric["parsed_pred"].(string); ok {
		setReply(row, metricName+".parsed_pred", strings.TrimSpace(pp))
		return
	}
	if v, ok := metric["pred_id"]; ok {
		if n, ok := items.Integer(v); ok {
			setChoice(row, metricName+".pred_id", n)
		}
		return
	}
	egoschemaParse(m, row)
}

// egoschemaParse reads egoschema_process_results(_generation)'s two
// metric objects, where a line has them.
func egoschemaParse(m map[string]any, row *items.Row) {
	score, ok := m["score"].(map[string]any)
	if !ok {
		return
	}
	pred, hasPred := score["pred"]
	if _, hasGT := score["ground_truth"]; !hasPred || !hasGT {
		return
	}
	// The submission's key is the question's q_uid (video_idx), which the
	// egoschema importer makes the id and the video: a doc (up to v0.3)
	// names it under no field the readers know as an id.
	if sub, ok := m["submission"].(map[string]any); ok && len(sub) == 1 {
		for k := range sub {
			if k = strings.TrimSpace(k); k != "" {
				row.ID, row.Video = k, k
			}
		}
		if row.ItemsFrom != "doc" {
			row.ItemsFrom = "input, submission and score"
		}
	}
	if row.Gold == "" {
		if s, ok := items.Text(score["ground_truth"]); ok {
			row.Gold = strings.TrimSpace(s)
		}
	}
	if n, ok := items.Integer(pred); ok {
		setChoice(row, "score.pred", n)
	}
}

func setReply(row *items.Row, from, reply string) {
	row.HasPrediction = true
	row.Reply, row.Choice = reply, -1
	row.ReplyFrom, row.ReplyField = from, from
}

// setChoice sets the task's chosen index; -1 (or any index past the
// options, which the task could not have chosen) is an unparsed reply.
func setChoice(row *items.Row, from string, n int) {
	row.HasPrediction = true
	row.ReplyFrom, row.ReplyField = from, from
	if n < 0 || len(row.Options) > 0 && n >= len(row.Options) {
		row.Reply, row.Choice = "", -1
		return
	}
	row.Reply, row.Choice = fmt.Sprint(n), n
}

// metricID is the id a metric object gives, unless it is no id: MLVU's
// mlvu_process_results logs the question's text as question_id, and two
// questions worded alike would be one id. An id holding whitespace is
// taken for such a text, and the line's doc_id is used instead.
func metricID(metric items.Record) string {
	id := metric.ID()
	if strings.ContainsFunc(id, func(r rune) bool { return r == ' ' || r == '\n' || r == '\t' }) {
		return ""
	}
	return id
}

// metricIDNames are the fields metricObject looks for, the task's parses
// included.
var metricIDNames = []string{"pred_answer", "parsed_pred", "pred_id", "id", "question_id", "qid", "q_uid", "uid", "index"}
