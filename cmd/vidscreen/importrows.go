package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/release/export"
)

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
	// DurationCategory is a duration the file gives as a category
	// (Video-MME's "short", "medium", "long"), never turned into seconds.
	DurationCategory string   `json:"duration_category,omitempty"`
	Group            string   `json:"group,omitempty"`
	VideoPath        string   `json:"video_path,omitempty"`
	Start            *float64 `json:"start,omitempty"`
	End              *float64 `json:"end,omitempty"`
	// Meta holds what the schema has no field for: the format's own
	// fields.
	Meta map[string]any `json:"meta,omitempty"`
}

// openEndedItem is a record whose gold names several options or none,
// written aside (ITEMS.open-ended.jsonl) rather than audited.
type openEndedItem struct {
	ID        string   `json:"id"`
	Benchmark string   `json:"benchmark,omitempty"`
	Video     string   `json:"video,omitempty"`
	Question  string   `json:"question,omitempty"`
	Options   []string `json:"options,omitempty"`
	Gold      string   `json:"gold,omitempty"`
	Reason    string   `json:"reason"`
	Source    string   `json:"source"`
}

// imported is what an import turns the rows into.
type imported struct {
	items, preds, open []byte
	kept               []importedItem // the items, for --check and --videos
	sum                importSummary
}

// importSummary is what an import says on stderr about where its items
// and replies came from.
type importSummary struct {
	itemsFrom map[string]int // source -> rows
	videoFrom map[string]int
	replyFrom map[string]int
	stripped  int // items whose options carried letter prefixes
	// lineBreaks are the ids of the items an option of which holds a
	// line break.
	lineBreaks []string
	replies    int
	correct    int
	unparsed   []string // the ids of replies naming no option
	open       []items.Drop
	dropped    []items.Drop
	records    int // rows read, with the dropped ones
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

// listed shows the first few of a list and how many more there are.
func listed(xs []string, n int) string {
	shown := xs[:min(len(xs), n)]
	more := ""
	if len(xs) > len(shown) {
		more = fmt.Sprintf(", and %d more", len(xs)-len(shown))
	}
	return strings.Join(shown, ", ") + more
}

func (s *importSummary) print(w io.Writer, file string, kept int) {
	fmt.Fprintf(w, "vidscreen import: %s: %d records: %d items, %d open-ended, %d dropped\n", file, s.records, kept, len(s.open), len(s.dropped))
	// One reason given for many records (EgoSchema's 4,531 questions
	// without a public answer) is said once, with its count and the first
	// records, not once a record.
	var reasons []string
	byReason := map[string][]string{}
	for _, d := range s.dropped {
		if _, ok := byReason[d.Reason]; !ok {
			reasons = append(reasons, d.Reason)
		}
		byReason[d.Reason] = append(byReason[d.Reason], d.Source)
	}
	for _, r := range reasons {
		if src := byReason[r]; len(src) == 1 {
			fmt.Fprintf(w, "vidscreen import: %s: dropped %s: %s\n", file, src[0], r)
		} else {
			fmt.Fprintf(w, "vidscreen import: %s: dropped %d records: %s: %s\n", file, len(src), r, listed(src, 3))
		}
	}
	if len(s.open) > 0 {
		var ids []string
		for _, d := range s.open {
			ids = append(ids, fmt.Sprintf("%s (%s)", d.Source, d.Reason))
		}
		fmt.Fprintf(w, "vidscreen import: %s: %d open-ended (the answer names several options or none; written aside, not audited): %s\n", file, len(s.open), listed(ids, 5))
	}
	if len(s.itemsFrom) > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: items read %s\n", file, sortedCounts(s.itemsFrom))
	}
	if s.stripped > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: letter prefixes (\"A. \") removed from the options of %d items\n", file, s.stripped)
	}
	if n := len(s.lineBreaks); n > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: %d items have an option holding a line break (kept; a prompt shows it on two lines): %s\n", file, n, listed(s.lineBreaks, 5))
	}
	if len(s.videoFrom) > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: the file names no video file; the video of each item: %s (a video number, not a file name: the video levels will not find it, nor will an exported task; import the benchmark's own annotation file, for Video-MME videomme/test-00000-of-00001.parquet, and give its items with --items-from to name the files)\n", file, sortedCounts(s.videoFrom))
	}
	if s.replies == 0 {
		return
	}
	if len(s.replyFrom) > 0 {
		fmt.Fprintf(w, "vidscreen import: %s: replies as the tool parsed them: %s\n", file, sortedCounts(s.replyFrom))
	}
	fmt.Fprintf(w, "vidscreen import: %s: %d replies, %d right: accuracy %.1f%% with unparsed replies counted wrong", file, s.replies, s.correct, 100*float64(s.correct)/float64(s.replies))
	if n := len(s.unparsed); n > 0 {
		fmt.Fprintf(w, "; %d unparsed (no option named): %s", n, listed(s.unparsed, 5))
	}
	fmt.Fprintln(w)
}

// importRows turns rows into item lines, open-ended lines and, when the
// rows carry replies, prediction lines. bench, when set, names every
// item's benchmark; else the row's, else fallback. base reads digit
// answers and replies (items.Options.Base). Each item is checked by the
// item reader itself; an error names the row it came from.
func importRows(res *items.Result, bench, fallback string, opt items.Options, vlmevalkit bool) (*imported, error) {
	out := &imported{}
	sum := &out.sum
	sum.records = len(res.Rows) + len(res.Dropped)
	var ib, pb, ob bytes.Buffer
	for _, d := range res.Dropped {
		if !d.OpenEnded {
			sum.dropped = append(sum.dropped, d)
			continue
		}
		sum.open = append(sum.open, d)
		o := openEndedItem{ID: d.ID, Reason: d.Reason, Source: d.Source}
		if r := d.Record; r != nil {
			o.Benchmark, o.Video, o.Question, o.Options, o.Gold = r.Benchmark, r.Video, r.Question, r.Options, r.Gold
			if bench != "" {
				o.Benchmark = bench
			}
		}
		b, _ := json.Marshal(o)
		ob.Write(b)
		ob.WriteByte('\n')
	}
	hasPreds := false
	type seenRow struct{ source, video, question string }
	seen := map[string]seenRow{}
	var rows []items.Row // the rows kept as items, for the item reader's errors
	for _, r := range res.Rows {
		fail := func(field string, err error) error {
			return &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: field, Err: err}
		}
		name := bench
		if name == "" {
			name = r.Benchmark
		}
		if name == "" {
			name = fallback
		}
		switch {
		case r.ID == "":
			return nil, fail("id", fmt.Errorf("%w: no id, question_id or index", harness.ErrMissingField))
		case r.Video == "" && strings.HasPrefix(r.ItemsFrom, "input"):
			return nil, fail("video", fmt.Errorf("%w: the log names no video (lmms-eval since v0.4 logs the prompt, not the benchmark's record): give --items-from FILE, the items an import of the benchmark's own file wrote", harness.ErrMissingField))
		case r.Video == "":
			return nil, fail("video", fmt.Errorf("%w: no video, video_id or video_name (vidscreen audits video benchmarks)", harness.ErrMissingField))
		case len(r.Options) == 0:
			return nil, fail("options", fmt.Errorf("%w: no options (A, B, ... columns, candidates or options)", harness.ErrMissingField))
		case len(r.Options) == 1:
			return nil, fail("options", fmt.Errorf("%w: one option (%q); a multiple-choice item needs at least two", harness.ErrTooFewOptions, r.Options[0]))
		}
		if prev, dup := seen[r.ID]; dup {
			return nil, fail("id", duplicateID(r, prev.source, prev.video, prev.question, vlmevalkit))
		}
		seen[r.ID] = seenRow{r.Source, r.Video, r.Question}
		// A NUL byte is no text a benchmark means (a damaged file, a
		// binary cell): refused. A line break inside an option is kept, and
		// counted: a prompt shows that option on two lines.
		if strings.ContainsRune(r.Question, 0) {
			return nil, fail("question", fmt.Errorf("%w: holds a NUL byte: a damaged file?", harness.ErrBadValue))
		}
		broken := false
		for k, o := range r.Options {
			if strings.ContainsRune(o, 0) {
				return nil, fail("options", fmt.Errorf("%w: option %s holds a NUL byte: a damaged file?", harness.ErrBadValue, answer.Letter(k)))
			}
			broken = broken || strings.ContainsAny(o, "\r\n")
		}
		if broken {
			sum.lineBreaks = append(sum.lineBreaks, r.ID)
		}
		opts := r.Options
		if s, ok := items.StripLetterPrefixes(opts); ok {
			opts = s
			sum.stripped++
		}
		gold := r.GoldIndex
		if gold >= len(opts) {
			return nil, fail("answer", fmt.Errorf("%w: index %d, but there are %d options", harness.ErrAnswerRange, gold, len(opts)))
		}
		if gold < 0 {
			g, open, err := items.Gold(r.Gold, opts, opt.Base(-1))
			if err != nil {
				return nil, fail("answer", err)
			}
			if open != "" {
				d := items.Drop{Source: r.Source, ID: r.ID, Reason: open, OpenEnded: true}
				sum.open = append(sum.open, d)
				b, _ := json.Marshal(openEndedItem{ID: r.ID, Benchmark: name, Video: r.Video, Question: r.Question, Options: opts, Gold: r.Gold, Reason: open, Source: r.Source})
				ob.Write(b)
				ob.WriteByte('\n')
				continue
			}
			gold = g
		}
		it := importedItem{ID: r.ID, Benchmark: name, Video: r.Video, VideoPath: r.VideoPath, Question: r.Question, Options: opts, Answer: gold, Task: r.Task, Duration: r.Duration,
			DurationCategory: r.DurationGroup, Group: r.Group, Start: r.Start, End: r.End}
		if len(r.Meta) > 0 || r.VideoFrom != "" {
			it.Meta = maps.Clone(r.Meta)
			if it.Meta == nil {
				it.Meta = map[string]any{}
			}
			// The file named the video only by a number: the exports refuse
			// such an item rather than write a path that cannot exist.
			if r.VideoFrom != "" {
				it.Meta[export.VideoFromKey] = r.VideoFrom
			}
		}
		b, err := json.Marshal(it)
		if err != nil {
			return nil, fail("meta", fmt.Errorf("%w: %v", harness.ErrFieldType, err))
		}
		ib.Write(b)
		ib.WriteByte('\n')
		out.kept = append(out.kept, it)
		rows = append(rows, r)
		sum.count(&sum.itemsFrom, r.ItemsFrom)
		sum.count(&sum.videoFrom, r.VideoFrom)
		if !r.HasPrediction {
			continue
		}
		hasPreds = true
		sum.replies++
		sum.count(&sum.replyFrom, r.ReplyFrom)
		var pred any = r.Reply
		choice := r.Choice
		if choice < 0 {
			c, rule, err := items.Reply(r.Reply, opts, opt.Base(-1))
			if err != nil {
				field := r.ReplyField
				if field == "" {
					field = "prediction"
				}
				return nil, fail(field, err)
			}
			choice = c
			if rule == answer.Number {
				// A digit read with --index-base: written as the index,
				// so that the audit need not be told the base again.
				pred = c
			}
		} else {
			pred = choice
		}
		switch {
		case choice < 0 || choice >= len(opts):
			sum.unparsed = append(sum.unparsed, r.ID)
		case choice == gold:
			sum.correct++
		}
		b, _ = json.Marshal(map[string]any{"id": r.ID, "benchmark": name, "pred": pred})
		pb.Write(b)
		pb.WriteByte('\n')
	}
	// The item reader checks what the rows above do not (empty texts, too
	// many options); its line n is item n.
	if _, err := harness.NewJSONLReader(bytes.NewReader(ib.Bytes()), "items.jsonl").ReadAll(); err != nil {
		var pe *harness.ParseError
		if errors.As(err, &pe) && pe.Line >= 1 && pe.Line <= len(rows) {
			r := rows[pe.Line-1]
			return nil, &harness.ParseError{File: r.File, Line: r.Line, Row: r.Rec, Field: pe.Field, Err: pe.Err}
		}
		return nil, err
	}
	out.items, out.open = ib.Bytes(), ob.Bytes()
	if hasPreds {
		out.preds = pb.Bytes()
	}
	return out, nil
}

// duplicateID names the likely cause of an id given twice: ids that count
// questions within each video (NExT-QA's qid), the same question twice
// (VLMEvalKit's circular copies, in its files), or plain duplicates.
func duplicateID(r items.Row, prevSource, prevVideo, prevQuestion string, vlmevalkit bool) error {
	base := fmt.Errorf("%w: %q was already given at %s", harness.ErrDuplicateID, r.ID, prevSource)
	switch {
	case prevVideo != r.Video:
		return fmt.Errorf("%w, for video %q, and here for video %q: the ids number the questions within each video (as NExT-QA's qid does), so they repeat across videos; import with the benchmark's own format (`vidscreen import nextqa` makes the id <video>_<qid>), or give an id column unique over the file", base, prevVideo, r.Video)
	case prevQuestion == r.Question && vlmevalkit:
		return fmt.Errorf("%w with the same question: VLMEvalKit's circular copies of a question? import the dataset's own TSV", base)
	case prevQuestion == r.Question:
		return fmt.Errorf("%w with the same video and question: the record is in the file twice", base)
	}
	return fmt.Errorf("%w: every record needs an id of its own", base)
}
