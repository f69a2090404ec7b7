package predictions

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
)

// A Report says what became of a file's rows when they were matched to the
// items. Every row is counted in exactly one of Matched, Unmatched,
// Ambiguous, Repeated and Unparsed; the last four list the rows' Sources.
type Report struct {
	File   string
	Format Format
	Rows   int
	// Matched rows gave an option for an item: ByID of them through the
	// item's id, ByText through its question text and options.
	Matched, ByID, ByText int
	// Unmatched rows match no item; Ambiguous ones several (the same
	// question and options in several items); Repeated ones answer an item
	// an earlier row answered (the first is kept); Unparsed ones match an
	// item but name none of its options: they count as wrong answers (-1 in
	// Match's answers), as lmms-eval and VLMEvalKit count a reply they cannot
	// parse, so that s* is the accuracy the tool reported.
	Unmatched, Ambiguous, Repeated, Unparsed []string
	// Rules counts the matched rows by how their reply was read (see
	// answer.Rule).
	Rules map[string]int
	// Missing counts the items of the benchmarks the file answers that no
	// row answered.
	Missing int
}

// String summarises the report in one paragraph, naming the first few
// rows of each kind that did not count.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d rows, %d matched (%d by id, %d by question text and options)", r.File, r.Format, r.Rows, r.Matched, r.ByID, r.ByText)
	if len(r.Rules) > 0 {
		var rules []string
		for k, v := range r.Rules {
			rules = append(rules, fmt.Sprintf("%s %d", k, v))
		}
		slices.Sort(rules)
		fmt.Fprintf(&b, "; replies read by %s", strings.Join(rules, ", "))
	}
	for _, k := range []struct {
		what string
		rows []string
	}{{"unmatched", r.Unmatched}, {"ambiguous (several items)", r.Ambiguous}, {"repeated (item already answered; first kept)", r.Repeated}, {"unparsed (no option named: counted wrong)", r.Unparsed}} {
		if len(k.rows) == 0 {
			continue
		}
		shown := k.rows[:min(len(k.rows), 3)]
		more := ""
		if len(k.rows) > len(shown) {
			more = fmt.Sprintf(", and %d more", len(k.rows)-len(shown))
		}
		fmt.Fprintf(&b, "; %d %s: %s%s", len(k.rows), k.what, strings.Join(shown, ", "), more)
	}
	if r.Missing > 0 {
		fmt.Fprintf(&b, "; %d items of those benchmarks have no answer", r.Missing)
	}
	return b.String()
}

// Match pairs rows with items and reads each matched row's answer as an
// option index of its item. It returns the answers keyed by
// harness.Item.Key (-1 for an unparsed reply: a wrong answer) and the
// report of what became of every row. base is how a reply that is only a
// digit is read (items.Options.Base): 0 or 1, or -1, when such a reply is
// an error naming both readings (items.ErrAmbiguousIndex) and its row.
//
// A row matches through its id when some item of the row's benchmark (or,
// when the benchmark names none, exactly one item of any benchmark) has that
// id and, if the row gives a question, the same question: the ids then
// agree. Otherwise it matches through its question text and, when it gives
// them, its options (compared as a set, letter prefixes, case and
// punctuation ignored). A row given options answers by their text, so a
// file that shuffled the options still maps onto the item's order.
func Match(rows []Row, items []*harness.Item, base int) (map[string]int, *Report, error) {
	ix := newIndex(items)
	out := map[string]int{}
	rep := &Report{Rows: len(rows), Rules: map[string]int{}}
	if len(rows) > 0 {
		rep.File = rows[0].File
	}
	benchmarks := map[string]bool{}
	for _, row := range rows {
		q, opts := answer.Normalize(row.Question), compareForms(row.Options)
		cands, byID := ix.lookup(row, q, opts)
		switch {
		case len(cands) == 0:
			rep.Unmatched = append(rep.Unmatched, row.Source)
			continue
		case len(cands) > 1:
			rep.Ambiguous = append(rep.Ambiguous, row.Source)
			continue
		}
		it := items[cands[0]]
		benchmarks[it.Benchmark] = true
		if _, done := out[it.Key()]; done {
			rep.Repeated = append(rep.Repeated, row.Source)
			continue
		}
		choice, rule, err := choose(row, opts, it, ix.options[cands[0]], base)
		if err != nil {
			field := row.ReplyField
			if field == "" {
				field = "prediction"
			}
			return nil, rep, &harness.ParseError{File: row.File, Line: row.Line, Row: row.Rec, Field: field, Err: err}
		}
		if choice < 0 {
			rep.Unparsed = append(rep.Unparsed, row.Source)
			out[it.Key()] = -1
			continue
		}
		out[it.Key()] = choice
		rep.Matched++
		rep.Rules[rule.String()]++
		if byID {
			rep.ByID++
		} else {
			rep.ByText++
		}
	}
	for _, it := range items {
		if _, ok := out[it.Key()]; !ok && benchmarks[it.Benchmark] {
			rep.Missing++
		}
	}
	return out, rep, nil
}

// choose reads a matched row's answer as an option of it, or -1.
func choose(row Row, rowOpts []string, it *harness.Item, itOpts []string, base int) (int, answer.Rule, error) {
	opts := it.Options
	if len(row.Options) > 0 {
		opts = row.Options
	}
	// A log-likelihood task scores each option once: a record without
	// options of its own (an lmms-eval log whose prompt is the bare
	// question) must score as many as its item has.
	if row.Scores > 0 && len(row.Options) == 0 && row.Scores != len(opts) {
		return -1, answer.None, fmt.Errorf("%w: %d log-likelihoods for the %d options of item %s: not the same question", harness.ErrAnswerRange, row.Scores, len(opts), it.ID)
	}
	i, rule := row.Choice, answer.Index
	if i < 0 {
		if !row.HasPrediction {
			return -1, answer.None, nil
		}
		var err error
		if i, rule, err = items.Reply(row.Reply, opts, base); err != nil {
			return -1, answer.None, err
		}
	}
	if i < 0 || i >= len(opts) {
		return -1, answer.None, nil
	}
	if len(row.Options) == 0 || slices.Equal(rowOpts, itOpts) {
		return i, rule, nil
	}
	found := -1
	for j, o := range itOpts {
		if o == rowOpts[i] {
			if found >= 0 {
				return -1, answer.None, nil // the option's text names two of the item's
			}
			found = j
		}
	}
	return found, rule, nil
}

// index finds items by key, by id and by text; it holds each item's
// question and options in the form they are compared in.
type index struct {
	byKey      map[string]int
	byID       map[string][]int
	byText     map[string][]int // question + sorted options
	byQuestion map[string][]int
	items      []*harness.Item
	question   []string
	options    [][]string
}

func newIndex(items []*harness.Item) *index {
	ix := &index{byKey: map[string]int{}, byID: map[string][]int{}, byText: map[string][]int{}, byQuestion: map[string][]int{},
		items: items, question: make([]string, len(items)), options: make([][]string, len(items))}
	for i, it := range items {
		ix.byKey[it.Key()] = i
		ix.byID[it.ID] = append(ix.byID[it.ID], i)
		ix.question[i] = answer.Normalize(it.Question)
		ix.options[i] = compareForms(it.Options)
		ix.byQuestion[ix.question[i]] = append(ix.byQuestion[ix.question[i]], i)
		k := textKey(ix.question[i], ix.options[i])
		ix.byText[k] = append(ix.byText[k], i)
	}
	return ix
}

func compareForms(opts []string) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = answer.CompareForm(o)
	}
	return out
}

// textKey is a question and its options, compared as a set.
func textKey(q string, norm []string) string {
	sorted := slices.Clone(norm)
	slices.Sort(sorted)
	return q + "\x00" + strings.Join(sorted, "\x00")
}

// lookup returns the items a row may answer and whether its id chose them;
// q and opts are the row's question and options in compared form.
func (ix *index) lookup(row Row, q string, opts []string) ([]int, bool) {
	agrees := func(i int) bool { return row.Question == "" || ix.question[i] == q }
	if row.ID != "" {
		if i, ok := ix.byKey[row.Benchmark+"\x00"+row.ID]; ok && agrees(i) {
			return []int{i}, true
		}
		var same []int
		for _, i := range ix.byID[row.ID] {
			if agrees(i) {
				same = append(same, i)
			}
		}
		if len(same) == 1 {
			return same, true
		}
	}
	if row.Question == "" {
		return nil, false
	}
	var cands []int
	if len(row.Options) > 0 {
		cands = ix.byText[textKey(q, opts)]
	} else {
		cands = ix.byQuestion[q]
	}
	cands = narrow(cands, func(i int) bool { return ix.items[i].Video == row.Video }, row.Video != "")
	cands = narrow(cands, func(i int) bool { return ix.items[i].Benchmark == row.Benchmark }, row.Benchmark != "")
	return cands, false
}

// narrow keeps the candidates that satisfy keep when there are several and
// the row has the field (use); it never narrows to none.
func narrow(cands []int, keep func(int) bool, use bool) []int {
	if len(cands) < 2 || !use {
		return cands
	}
	var in []int
	for _, i := range cands {
		if keep(i) {
			in = append(in, i)
		}
	}
	if len(in) == 0 {
		return cands
	}
	return in
}

// Load reads the file at path and matches its rows to its (the run's
// items), reading a digit reply as opt says (--index-base). It fails, with
// a *harness.ParseError, when the file cannot be read, when a digit reply
// is ambiguous, or when none of its rows gives an answer for an item: a
// file for other items is a mistake, not a model that answered nothing.
func Load(ctx context.Context, path string, its []*harness.Item, opt items.Options) (map[string]int, *Report, error) {
	rows, format, err := Read(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	preds, rep, err := Match(rows, its, opt.Base(-1))
	if err != nil {
		return nil, rep, err
	}
	rep.File, rep.Format = path, format
	if rep.Matched == 0 {
		return nil, rep, &harness.ParseError{File: path, Err: fmt.Errorf("%w: none of its %d rows answers one of the run's items (%s)", harness.ErrUnknownItem, len(rows), rep)}
	}
	return preds, rep, nil
}
