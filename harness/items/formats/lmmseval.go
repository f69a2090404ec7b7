package formats

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
)

// LMMSEval is lmms-eval's --log_samples output, in every layout its
// evaluator has written: v0.2.0-v0.2.3's <task>.json (one object whose logs
// list holds the samples); samples_<task>_<ISO time>.jsonl (v0.2.3) and
// <YYYYmmdd_HHMMSS>_samples_<task>.jsonl (v0.2.4 on), one sample per line
// with doc_id, target and filtered_resps, plus up to v0.3 doc (the
// benchmark's own record) and since v0.4 input (the prompt) and the task's
// metric object instead; since v0.7 filtered_resps is a bare string when
// the task makes one request per document.
func LMMSEval() items.Format {
	return items.Format{
		Name:  "lmms-eval",
		Title: "lmms-eval samples",
		Files: "<YYYYmmdd_HHMMSS>_samples_<task>.jsonl, samples_<task>_<time>.jsonl, or v0.2's <task>.json with a logs list",
		Detect: func(path string, head []byte) bool {
			if isLogsObject(head) {
				return true
			}
			line, _ := items.FirstLine(head)
			return len(line) > 0 && line[0] == '{' && bytes.Contains(line, []byte(`"filtered_resps"`)) && bytes.Contains(line, []byte(`"doc_id"`))
		},
		Read: readLMMSEvalFiles,
	}
}

func readLMMSEvalFiles(ctx context.Context, paths []string, opt items.Options) (*items.Result, error) {
	res := &items.Result{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, items.OpenError(p, err)
		}
		rows, err := readLMMSEvalBytes(ctx, b, p, opt)
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rows...)
	}
	return res, nil
}

// ReadLMMSEval reads one lmms-eval samples file in any of its layouts.
func ReadLMMSEval(ctx context.Context, path string) ([]items.Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, items.OpenError(path, err)
	}
	return readLMMSEvalBytes(ctx, b, path, items.NoOptions())
}

// readLMMSEvalBytes reads the bytes b of the samples file path.
func readLMMSEvalBytes(ctx context.Context, b []byte, path string, opt items.Options) ([]items.Row, error) {
	if isLogsObject(b) {
		return readLMMSEvalLogs(ctx, b, path, opt)
	}
	line, _ := items.FirstLine(b)
	if len(line) > 0 && line[0] != '{' || len(line) == 0 {
		return nil, &harness.ParseError{File: path, Line: 1, Err: fmt.Errorf("%w: expected lmms-eval's samples (one JSON object per line), found %s", harness.ErrSyntax, items.Describe(path, b))}
	}
	if !json.Valid(line) && json.Valid(bytes.TrimSpace(b)) {
		if isResultsObject(b) {
			return nil, &harness.ParseError{File: path, Line: 1, Err: fmt.Errorf("%w: this is lmms-eval's aggregated results (<time>_results.json), which holds scores, not samples: give the <time>_samples_<task>.jsonl beside it (written with --log_samples)", harness.ErrNotAFile)}
		}
		return nil, &harness.ParseError{File: path, Line: 1, Err: fmt.Errorf("%w: expected lmms-eval's samples (one JSON object per line), found %s", harness.ErrSyntax, items.Describe(path, b))}
	}
	task := TaskName(path)
	var rows []items.Row
	err := items.ReadLines(bufio.NewReader(bytes.NewReader(b)), path, func(l []byte, n int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := items.DecodeLine(l, path, n)
		if err != nil {
			return err
		}
		row, err := lmmsRow(m, path, task, n, 0, opt)
		if err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// sampleName finds the task in lmms-eval's file names:
// samples_<task>_<ISO time>.jsonl (and <time>_samples_<task>.jsonl in later
// releases).
var sampleName = regexp.MustCompile(`samples_(.+?)(?:_\d{4}-\d{2}-\d{2}T[0-9.:\-]+)?$`)

// TaskName is the benchmark an lmms-eval samples file belongs to, from its
// name; the base name without extension when it does not follow the
// pattern.
func TaskName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if m := sampleName.FindStringSubmatch(base); m != nil {
		return m[1]
	}
	return base
}

// isLogsObject says whether b opens lmms-eval's v0.2 <task>.json: an
// object with a logs list (head may be cut short, so it is not parsed).
func isLogsObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	i := bytes.Index(b, []byte(`"logs"`))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(b[i+len(`"logs"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return len(rest) > 0 && rest[0] == '['
}

// trailing refuses what follows the one JSON value of a file that ends at
// offset off of b: a second document, or text after it, would be lost
// without a word.
func trailing(b []byte, off int64) error {
	rest := bytes.TrimSpace(b[min(int(off), len(b)):])
	if len(rest) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s after the document, at line %d: the file holds one JSON value", harness.ErrSyntax, strconv.Quote(string(rest[:min(len(rest), 40)])), 1+bytes.Count(b[:off], []byte("\n")))
}

// isResultsObject says whether b is the <date_id>_results.json
// save_results_aggregated writes beside the samples: one object with the
// task scores under results and the task configs under configs.
func isResultsObject(b []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return false
	}
	_, results := top["results"]
	_, configs := top["configs"]
	return results && configs
}

// readLMMSEvalLogs reads the <task>.json lmms-eval v0.2.0-v0.2.3 wrote
// with --log_samples: one object {"args", "model_configs", "logs": [...],
// "time"}. An error names the sample as a row (logs[0] is row 1).
func readLMMSEvalLogs(ctx context.Context, b []byte, name string, opt items.Options) ([]items.Row, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var top struct {
		Logs []json.RawMessage `json:"logs"`
	}
	if err := d.Decode(&top); err != nil {
		return nil, &harness.ParseError{File: name, Err: fmt.Errorf("%w: not lmms-eval's <task>.json object with logs: %v", harness.ErrSyntax, err)}
	}
	if err := trailing(b, d.InputOffset()); err != nil {
		return nil, &harness.ParseError{File: name, Err: err}
	}
	task := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	rows := make([]items.Row, 0, len(top.Logs))
	for i, raw := range top.Logs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil || m == nil {
			return nil, &harness.ParseError{File: name, Row: i + 1, Field: "logs", Err: fmt.Errorf("%w: want each sample as an object", harness.ErrFieldType)}
		}
		row, err := lmmsRow(m, name, task, 0, i+1, opt)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// lmmsRow reads one sample of an lmms-eval log, at line (a JSON Lines
// file) or rec (the logs of a <task>.json).
func lmmsRow(m map[string]any, name, task string, line, rec int, opt items.Options) (items.Row, error) {
	fail := func(field string, err error) error {
		return &harness.ParseError{File: name, Line: line, Row: rec, Field: field, Err: err}
	}
	source := fmt.Sprintf("%s:%d", name, line)
	if line == 0 {
		source = fmt.Sprintf("%s: row %d", name, rec)
	}
	row := items.Row{Source: source, File: name, Line: line, Rec: rec, Benchmark: task, Choice: -1}
	if s, ok := items.Text(m["doc_id"]); ok {
		row.DocID = s
	}
	metricName, metric := metricObject(m)
	if dv, hasDoc := m["doc"]; hasDoc {
		docv, ok := dv.(map[string]any)
		if !ok {
			return items.Row{}, fail("doc", fmt.Errorf("%w: want the document as an object", harness.ErrFieldType))
		}
		if err := rowFromDoc(items.NewRecord(docv), m, &row); err != nil {
			return items.Row{}, err
		}
	} else if err := rowFromLog(m, metricName, metric, &row, opt); err != nil {
		return items.Row{}, err
	}
	row.Gold = strings.TrimSpace(row.Gold)
	if fr, ok := m["filtered_resps"]; ok {
		row.HasPrediction, row.ReplyField = true, "filtered_resps"
		lls, err := sampleReply(fr, &row)
		if err != nil {
			return items.Row{}, fail("filtered_resps", fmt.Errorf("%w: %v", harness.ErrFieldType, err))
		}
		row.Scores = lls
		// One log-likelihood per option: more or fewer is another
		// task's log, or options read wrong, and the best of them
		// would name the wrong option.
		if lls > 0 && len(row.Options) > 0 && lls != len(row.Options) {
			return items.Row{}, fail("filtered_resps", fmt.Errorf("%w: %d log-likelihoods for %d options: want one per option", harness.ErrAnswerRange, lls, len(row.Options)))
		}
	}
	// The task's own parse of the reply (Video-MME's pred_answer) is
	// what the task scored: use it, so that the accuracy is the one
	// lmms-eval reported; "" is its unparsed reply.
	taskParse(m, metricName, metric, &row)
	taskGold(&row)
	return row, nil
}

// rowFromDoc fills row from the benchmark's record that lmms-eval up to
// v0.3 logs as doc.
func rowFromDoc(doc items.Record, m map[string]any, row *items.Row) error {
	row.ItemsFrom = "doc"
	row.ID = doc.ID()
	if row.ID == "" {
		row.ID = row.DocID
	}
	row.Video, row.VideoFrom = doc.Video()
	row.Question = doc.Question()
	row.Task = doc.Task()
	row.Duration, row.DurationGroup = doc.Duration()
	opts, field, err := doc.Options()
	if err != nil {
		return &harness.ParseError{File: row.File, Line: row.Line, Row: row.Rec, Field: "doc." + field, Err: items.OptionsError(err)}
	}
	row.Options = opts
	row.Gold, row.GoldIndex = doc.GoldAnswer()
	if row.Gold == "" {
		row.Gold, row.GoldIndex = items.NewRecord(m).Gold("target")
	}
	return nil
}

// rowFromLog fills row from a line without doc (lmms-eval since v0.4):
// the question and lettered options from input, the prompt the model was
// given; the id, video, task and duration from the task's metric object
// (Video-MME's videomme_perception_score); the gold from target, else the
// metric object's answer.
func rowFromLog(m map[string]any, metricName string, metric items.Record, row *items.Row, opt items.Options) error {
	fail := func(field string, err error) error {
		return &harness.ParseError{File: row.File, Line: row.Line, Row: row.Rec, Field: field, Err: err}
	}
	row.ItemsFrom = "input"
	if metricName != "" {
		row.ItemsFrom = "input and " + metricName
	}
	in, ok := m["input"]
	if !ok {
		return fail("input", fmt.Errorf("%w: a line without doc must hold the prompt (input) to read the question and options from", harness.ErrMissingField))
	}
	prompt, ok := in.(string)
	if !ok {
		return fail("input", fmt.Errorf("%w: got %T, want the prompt as text", harness.ErrFieldType, in))
	}
	var perr error
	row.Question, row.Options, perr = parsePrompt(prompt)
	// vidscreen's export logs the question and the options as shown in
	// its metric object: exact where the prompt's lines are not (an
	// option holding a line break that reads as the next option).
	if opts, q, ok := metricOptions(metric); ok {
		row.Question, row.Options, perr = q, opts, nil
	}
	if perr != nil && !opt.ItemsFrom {
		return fail("input", fmt.Errorf("%w: %v: the prompt does not say which lines are the options; give the benchmark's items with --items-from", harness.ErrBadValue, perr))
	}
	// A log-likelihood task's prompt is often the bare question (EgoSchema's
	// and PerceptionTest's mcppl tasks: doc_to_text "question", the options
	// going in as continuations): its options are only in the benchmark's
	// own file, which --items-from joins.
	if len(row.Options) < 2 && !opt.ItemsFrom {
		return fail("input", fmt.Errorf("%w: the prompt holds no run of lettered options (\"A. ...\", \"B. ...\" lines); a multiple-choice item needs at least two (a log-likelihood task's prompt may hold only the question: give the benchmark's items with --items-from)", harness.ErrTooFewOptions))
	}
	row.ID = metricID(metric)
	if row.ID == "" {
		row.ID = row.DocID
	}
	row.Video, row.VideoFrom = metric.Video()
	if row.Video == "" {
		// Video-MME before v0.6 logs no video: its question ids are
		// <video number>-<question>, the number standing for the video.
		if g := videoNumber.FindStringSubmatch(row.ID); g != nil {
			row.Video, row.VideoFrom = g[1], "the question id"
		}
	}
	row.Task = metric.Task()
	row.Duration, row.DurationGroup = metric.Duration()
	row.Gold, row.GoldIndex = items.NewRecord(m).Gold("target")
	if row.Gold == "" {
		row.Gold, row.GoldIndex = metric.GoldAnswer()
	}
	return nil
}

// metricOptions are the question and the options as shown, where the
// metric object holds them as vidscreen's export writes them (a list of
// texts under options, the question under question).
func metricOptions(metric items.Record) (opts []string, question string, ok bool) {
	list, isList := metric["options"].([]any)
	q, isText := metric["question"].(string)
	if !isList || !isText || len(list) < 2 {
		return nil, "", false
	}
	for _, o := range list {
		s, isText := o.(string)
		if !isText {
			return nil, "", false
		}
		opts = append(opts, s)
	}
	return opts, q, true
}

var videoNumber = regexp.MustCompile(`^(\d+)-\d+$`)

// metricObject finds the task's metric object in a line: the first, by
// name, object-valued field other than doc that holds an id or the task's
// parse of the reply.
func metricObject(m map[string]any) (string, items.Record) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		obj, ok := m[k].(map[string]any)
		if !ok || k == "doc" {
			continue
		}
		r := items.NewRecord(obj)
		if _, _, ok := r.First(metricIDNames...); ok {
			return k, r
		}
	}
	return "", items.Record{}
}

// parsePrompt reads a multiple-choice prompt as lmms-eval's tasks build it.
// The options are the lettered lines readOptionLines finds (an option
// wrapped onto further lines kept whole, a prompt that reads two ways
// refused); the question is the whole text before them, every line of it,
// less what the task's template puts around it. Video-MME's
// videomme_doc_to_text (lmms_eval/tasks/videomme/utils.py) writes its
// instruction line ("Select the best answer to the following
// multiple-choice question based on the video..."), then doc["question"]
// as it is (lines and all), then the options and the post prompt; the
// subtitle variant puts "This video's subtitles are listed below:" and the
// subtitles above that instruction. So the question starts after the last
// template line (templateLine), and loses the model's media tokens
// ("<image>"), a "Question:" label (MVBench's template, the qwen3_vl
// pre_prompt) and a closing "Options:" or "Option:" line. A question that
// itself spans lines stays whole, so that it matches the benchmark's own
// record (--items-from).
//
// vidscreen's own export (harness/release/export's doc_to_text: its
// intro, a blank line, doc["question"], "A. " + each option, the post
// prompt) is read exactly: the question is every line between the blank
// line and the options as written, and the options run to the post
// prompt, line breaks kept.
func parsePrompt(p string) (question string, options []string, err error) {
	raw := strings.Split(strings.ReplaceAll(p, "\r\n", "\n"), "\n")
	if exportIntro(raw) && len(raw) > 3 && raw[len(raw)-1] == exportPostPrompt {
		body := raw[2 : len(raw)-1]
		start, opts, err := readOptionLines(body, 3, true)
		if err != nil {
			return "", nil, err
		}
		if len(opts) >= 2 {
			return strings.Join(body[:start], "\n"), opts, nil
		}
	}
	first := 1
	if exportIntro(raw) {
		raw, first = raw[2:], 3
	}
	start, opts, err := readOptionLines(raw, first, false)
	if err != nil {
		return "", nil, err
	}
	if len(opts) < 2 {
		// No run of option lines: options written inline ("(A) yes (B) no").
		q, inline := items.OptionsInQuestion(strings.Join(raw, "\n"))
		if len(inline) < 2 {
			return "", nil, nil
		}
		raw, opts = strings.Split(q, "\n"), inline
		start = len(raw)
	}
	if len(opts) < 2 {
		return "", nil, nil
	}
	var lines []string
	for _, l := range raw[:start] {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if n := len(lines); n > 0 && strings.EqualFold(strings.TrimSuffix(lines[n-1], ":"), "options") {
		lines = lines[:n-1]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if templateLine(lines[i]) {
			lines = lines[i+1:]
			break
		}
	}
	for len(lines) > 0 && mediaTokens.MatchString(strings.TrimSpace(lines[0])) {
		lines = lines[1:]
	}
	if n := len(lines); n > 0 && strings.EqualFold(strings.TrimSpace(lines[n-1]), "option:") {
		lines = lines[:n-1]
	}
	if len(lines) > 0 {
		first := strings.TrimSpace(lines[0])
		if len(first) >= len("question:") && strings.EqualFold(first[:len("question:")], "question:") {
			lines[0] = first[len("question:"):]
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), opts, nil
}

// templatePrefixes open the lines lmms-eval's video tasks write above the
// question: Video-MME's instruction (with or without "and the subtitles")
// and the subtitle preamble, the aria pre_prompt of EgoSchema's tasks
// ("Please answer the question about the video:").
var templatePrefixes = []string{
	"select the best answer to the following multiple-choice question",
	"this video's subtitles are listed below:",
	"please answer the question about the video:",
}

// exportIntro is the start of the tasks vidscreen's own export writes
// (harness/release/export's doc_to_text: the intro, "You are given a
// video...", "You are given frames sampled from a video...", then a blank
// line, then the question), so that their samples import back: only as
// the prompt's first line, followed by a blank one, since a question may
// itself begin so.
func exportIntro(lines []string) bool {
	return len(lines) > 1 && strings.TrimSpace(lines[1]) == "" &&
		strings.HasPrefix(strings.ToLower(strings.TrimSpace(lines[0])), "you are given ")
}

// templateLine says whether l is a line of the task's template, not of
// the question.
func templateLine(l string) bool {
	l = strings.ToLower(strings.TrimSpace(l))
	for _, p := range templatePrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// mediaTokens is a line of only the placeholders models put where the
// video goes (LLaVA's "<image>", "<video>", InternLM-XComposer's
// "[UNUSED_TOKEN_146]user").
var mediaTokens = regexp.MustCompile(`^(?:<[a-z_]+>|\[UNUSED_TOKEN_\d+\][a-z]*)+$`)

// sampleReply reads filtered_resps: a generated reply (a string, possibly
// nested in lists), or per option a [log-likelihood, is-greedy] pair whose
// largest log-likelihood is the model's choice; lls is the number of
// pairs (0 for a generated reply). Since v0.2.3 the evaluation tracker
// passes filtered_resps through sanitize_list (lmms_eval/utils.py), which
// turns every value inside into its str(): the pairs are then
// ["-12.5", "False"], and read as the numbers they stand for.
func sampleReply(v any, row *items.Row) (lls int, err error) {
	if s, ok := v.(string); ok {
		row.Reply = s // since v0.7, one request's reply unwrapped
		return 0, nil
	}
	list, ok := v.([]any)
	if !ok {
		return 0, fmt.Errorf("got %T, want the reply, a list of replies or of [log-likelihood, is-greedy] pairs", v)
	}
	if len(list) == 0 {
		return 0, nil // no reply: counted as unparsed
	}
	if _, isPair := llPair(list[0]); isPair {
		best, bestLL := -1, 0.0
		for i, e := range list {
			ll, ok := llPair(e)
			if !ok {
				return 0, fmt.Errorf("entry %d: want a [log-likelihood, is-greedy] pair like the first, found %v", i, e)
			}
			if ll > 0 {
				// A log-probability is at most 0: a positive one is
				// another score (a loss, a probability's negation), whose
				// largest names the wrong option.
				return 0, fmt.Errorf("entry %d: log-likelihood %v is above 0, which no log-probability is: the log holds another score", i, ll)
			}
			if best < 0 || ll > bestLL {
				best, bestLL = i, ll
			}
		}
		if len(list) > answer.MaxOptions {
			return 0, fmt.Errorf("%d log-likelihoods: more than %d options", len(list), answer.MaxOptions)
		}
		row.Choice = best
		return len(list), nil
	}
	for {
		switch x := list[0].(type) {
		case string:
			row.Reply = x
			return 0, nil
		case []any:
			if len(x) == 0 {
				return 0, nil
			}
			list = x
		default:
			s, ok := items.Text(x)
			if !ok {
				return 0, fmt.Errorf("reply of type %T", x)
			}
			row.Reply = s
			return 0, nil
		}
	}
}

// llPair reads a [log-likelihood, is-greedy] pair as lmms-eval logs it:
// the numbers themselves (v0.2's <task>.json) or their str() (since
// sanitize_list), "-inf" included; is-greedy a bool or "True"/"False".
// A NaN log-likelihood is no pair: it would name no option.
func llPair(v any) (float64, bool) {
	p, ok := v.([]any)
	if !ok || len(p) != 2 {
		return 0, false
	}
	switch g := p[1].(type) {
	case bool:
	case string:
		if g != "True" && g != "False" {
			return 0, false
		}
	default:
		return 0, false
	}
	var text string
	switch x := p[0].(type) {
	case json.Number:
		text = x.String()
	case string:
		text = strings.TrimSpace(x)
	default:
		return 0, false
	}
	ll, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(ll) {
		return 0, false
	}
	return ll, true
}
