package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/predictions"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

func newImportCommand() *command {
	return &command{
		name:  "import",
		short: "convert a VLMEvalKit table or lmms-eval samples file into items",
		usage: "vlmevalkit|lmms-eval FILE --out ITEMS.jsonl [flags]",
		long: `Import converts a benchmark as another evaluation tool holds it into vidscreen's item
schema (one JSON object per line: id, benchmark, video, question, options, answer as a
0-based index, task, duration), so that "vidscreen audit --items" reads it.

vlmevalkit reads one of VLMEvalKit's tables: its dataset TSV or a model's result file
(<model>_<dataset>.xlsx, .tsv or .csv), with the columns index (or question_id), video,
question, the options as A, B, ... columns or a candidates list, answer (a letter or the
option's text), and optionally task_type or category, duration and prediction.

lmms-eval reads the samples lmms-eval writes with --log_samples, in every layout: the
<task>.json object of v0.2.0-v0.2.3 (its logs list), samples_<task>_<time>.jsonl and
<YYYYmmdd_HHMMSS>_samples_<task>.jsonl. Up to
v0.3 each line's doc is the benchmark's own record (question_id or id, video, question,
options or candidates or a0..a4, answer). Since v0.4 there is no doc: the question and
the lettered options ("A. ..." lines) are read from input, the prompt the model was
given; the id, video, task and duration from the task's metric object (an object field
holding question_id, such as Video-MME's videomme_perception_score); the gold from
target (a letter or the text), else the metric object's answer. A duration given as a
category ("short") is kept as meta.duration_group. filtered_resps is the reply: a string
(v0.7), a list or a list of lists, or per option a [log-likelihood, is-greedy] pair.
Where the metric object holds the task's own parse of the reply (pred_answer), that is
the reply, so the accuracy is the one lmms-eval reported. stderr says where the items
came from and, for the replies, the accuracy with unparsed replies counted wrong (as
lmms-eval counts them) and the ids of the first unparsed ones.

When the file holds a model's replies (prediction, filtered_resps), they are written
beside the items as {"id", "benchmark", "pred"} lines (pred the reply as written, or the
option index a log-likelihood task chose), ready for audit --reference or --predictions.

The benchmark name is --benchmark, else the file's (the lmms-eval task, the VLMEvalKit
file name). Every row must give an id, a video, a question, at least two options and a
readable answer; the first that does not stops the import with an error naming the file,
line or row, and field, and nothing is written. Exit status: 0 success, 2 bad usage or
bad input, 1 any other failure.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the items to JSONL `FILE` (required)")
			bench := fs.String("benchmark", "", "name the benchmark `NAME` in every item (default: the lmms-eval task, or the VLMEvalKit file's name)")
			predOut := fs.String("predictions-out", "", "write the model's replies, when the file has them, to `FILE` (default: ITEMS.predictions.jsonl beside --out)")
			return func(ctx context.Context, args []string) error {
				if len(args) < 2 || strings.HasPrefix(args[1], "-") {
					return &usageError{"want the tool (vlmevalkit or lmms-eval) and a FILE"}
				}
				tool, file := args[0], args[1]
				// Flags may follow the arguments, as in the synopsis.
				if err := fs.Parse(args[2:]); err != nil {
					return &usageError{err.Error()}
				}
				if fs.NArg() > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q", fs.Args())}
				}
				var want predictions.Format
				switch tool {
				case "vlmevalkit":
					want = predictions.VLMEvalKit
				case "lmms-eval":
					want = predictions.LMMSEval
				default:
					return &usageError{fmt.Sprintf("unknown tool %q: want vlmevalkit or lmms-eval", tool)}
				}
				if *out == "" {
					return &usageError{"--out FILE is required"}
				}
				rows, format, err := predictions.Read(file)
				if format != "" && format != want && !errors.Is(err, os.ErrNotExist) {
					// The layout is known before the rows are read: name
					// it rather than the error reading it as this tool's.
					hint := ""
					if format == predictions.LMMSEval || format == predictions.VLMEvalKit {
						hint = fmt.Sprintf(": use `vidscreen import %s`", format)
					}
					return &usageError{fmt.Sprintf("%s is laid out as %s's files, not %s's: expected %s, found %s%s", file, format, want, want.Describe(), format.Describe(), hint)}
				}
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				name := *bench
				if name == "" {
					name = defaultBenchmark(file, format)
				}
				items, preds, sum, err := importRows(rows, name)
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				sum.print(env.stderr, file)
				if err := atomicfile.WriteBytes(*out, items); err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%d items of %s written to %s\n", len(rows), name, *out)
				if preds != nil {
					p := *predOut
					if p == "" {
						p = strings.TrimSuffix(*out, filepath.Ext(*out)) + ".predictions.jsonl"
					}
					if err := atomicfile.WriteBytes(p, preds); err != nil {
						return err
					}
					fmt.Fprintf(env.stdout, "the model's %d replies written to %s\n", len(rows), p)
				}
				return nil
			}
		},
	}
}

// defaultBenchmark names the benchmark of a file: lmms-eval's task, or a
// VLMEvalKit file's base name.
func defaultBenchmark(path string, format predictions.Format) string {
	if format == predictions.LMMSEval {
		return predictions.TaskName(path)
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// importedItem is the item schema in its documented field order.
type importedItem struct {
	ID        string   `json:"id"`
	Benchmark string   `json:"benchmark"`
	Video     string   `json:"video"`
	Question  string   `json:"question"`
	Options   []string `json:"options"`
	Answer    int      `json:"answer"`
	Task      string   `json:"task"`
	Duration  *float64 `json:"duration"`
	// Meta holds what the schema has no field for: a duration given as a
	// category ({"duration_group": "short"}).
	Meta json.RawMessage `json:"meta,omitempty"`
}

// importRows turns rows into item lines and, when the rows carry replies,
// prediction lines. Each item is checked by the item reader itself; an
// error names the row it came from.
func importRows(rows []predictions.Row, bench string) (items, preds []byte, sum importSummary, err error) {
	items, preds, err = importRowsInto(rows, bench, &sum)
	return items, preds, sum, err
}

// importSummary is what an import says on stderr about where its items
// and replies came from.
type importSummary struct {
	itemsFrom map[string]int // source -> rows
	videoFrom map[string]int
	replyFrom map[string]int
	replies   int
	correct   int
	unparsed  []string // the ids of replies naming no option
}

func (s *importSummary) count(m *map[string]int, k string) {
	if k == "" {
		return
	}
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k]++
}

func sortedCounts(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%d from %s", v, k))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

func (s *importSummary) print(w io.Writer, file string) {
	if len(s.itemsFrom) > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: items read %s\n", file, sortedCounts(s.itemsFrom))
	}
	if len(s.videoFrom) > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: the file names no video file; the video of each item: %s (a video number, not a file name: the video levels will not find it)\n", file, sortedCounts(s.videoFrom))
	}
	if s.replies == 0 {
		return
	}
	if len(s.replyFrom) > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: replies as the tool parsed them: %s\n", file, sortedCounts(s.replyFrom))
	}
	fmt.Fprintf(w, "vidscreen import: %s: %d replies, %d right: accuracy %.1f%% with unparsed replies counted wrong", file, s.replies, s.correct, 100*float64(s.correct)/float64(s.replies))
	if n := len(s.unparsed); n > 0 {
		shown := s.unparsed[:min(n, 5)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(", and %d more", n-len(shown))
		}
		fmt.Fprintf(w, "; %d unparsed (no option named): %s%s", n, strings.Join(shown, ", "), more)
	}
	fmt.Fprintln(w)
}

func importRowsInto(rows []predictions.Row, bench string, sum *importSummary) (items, preds []byte, err error) {
	var ib, pb bytes.Buffer
	hasPreds := false
	seen := map[string]string{} // id -> Source of its row
	for _, r := range rows {
		fail := func(field string, err error) error {
			return &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: field, Err: err}
		}
		switch {
		case r.ID == "":
			return nil, nil, fail("id", fmt.Errorf("%w: no id, question_id or index", harness.ErrMissingField))
		case r.Video == "":
			return nil, nil, fail("video", fmt.Errorf("%w: no video, video_id or video_name (vidscreen audits video benchmarks)", harness.ErrMissingField))
		case len(r.Options) == 0:
			return nil, nil, fail("options", fmt.Errorf("%w: no options (A, B, ... columns, candidates or options)", harness.ErrMissingField))
		case len(r.Options) == 1:
			return nil, nil, fail("options", fmt.Errorf("%w: one option (%q); a multiple-choice item needs at least two", harness.ErrTooFewOptions, r.Options[0]))
		}
		if src, dup := seen[r.ID]; dup {
			return nil, nil, fail("id", fmt.Errorf("%w: %q was already given at %s (VLMEvalKit's circular copies? import the dataset's own TSV)", harness.ErrDuplicateID, r.ID, src))
		}
		seen[r.ID] = r.Source
		gold := r.GoldIndex
		if gold < 0 {
			if gold = answer.Gold(r.Gold, r.Options); gold < 0 {
				return nil, nil, fail("answer", fmt.Errorf("%w: %q is neither an option letter nor the text of one option", harness.ErrAnswerRange, r.Gold))
			}
		}
		it := importedItem{ID: r.ID, Benchmark: bench, Video: r.Video, Question: r.Question, Options: r.Options, Answer: gold, Task: r.Task, Duration: r.Duration}
		if r.DurationGroup != "" {
			it.Meta, _ = json.Marshal(map[string]string{"duration_group": r.DurationGroup})
		}
		b, _ := json.Marshal(it)
		ib.Write(b)
		ib.WriteByte('\n')
		sum.count(&sum.itemsFrom, r.ItemsFrom)
		sum.count(&sum.videoFrom, r.VideoFrom)
		if r.HasPrediction {
			hasPreds = true
			sum.replies++
			sum.count(&sum.replyFrom, r.ReplyFrom)
			choice := r.Choice
			if choice < 0 {
				choice, _ = answer.Parse(r.Reply, r.Options)
			}
			switch {
			case choice < 0 || choice >= len(r.Options):
				sum.unparsed = append(sum.unparsed, r.ID)
			case choice == gold:
				sum.correct++
			}
			var pred any = r.Reply
			if r.Choice >= 0 {
				pred = r.Choice
			}
			b, _ := json.Marshal(map[string]any{"id": r.ID, "benchmark": bench, "pred": pred})
			pb.Write(b)
			pb.WriteByte('\n')
		}
	}
	// The item reader checks what the rows above do not (empty texts, too
	// many options); its line n is row n.
	if _, err := harness.NewJSONLReader(bytes.NewReader(ib.Bytes()), "items.jsonl").ReadAll(); err != nil {
		var pe *harness.ParseError
		if errors.As(err, &pe) && pe.Line >= 1 && pe.Line <= len(rows) {
			r := rows[pe.Line-1]
			return nil, nil, &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: pe.Field, Err: pe.Err}
		}
		return nil, nil, err
	}
	if !hasPreds {
		return ib.Bytes(), nil, nil
	}
	return ib.Bytes(), pb.Bytes(), nil
}
