package spec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/items"
)

// Read reads the spec's annotation files (files, when given, replace the
// spec's own) into rows, in file order and, within a file, record order.
// A record the format rules set aside (open-ended, kept out by keep: mcq
// or dedupe) is a Drop; a record that cannot be read (no video, a broken
// template, an index past the options) is an error naming its file, line
// or row, and field.
func (s *Spec) Read(ctx context.Context, files []string, opt items.Options) (*items.Result, error) {
	paths, err := s.paths(files)
	if err != nil {
		return nil, err
	}
	res := &items.Result{}
	seen := map[[2]string]string{} // (video, question) -> source, for dedupe
	index := 0
	for _, p := range paths {
		recs, err := readRecords(p, s.Records)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			r := &recs[i]
			if !s.keep(r.fields) {
				continue
			}
			r.fields["__index"] = float64(index)
			row, drop, err := s.row(r, index, opt)
			index++
			if err != nil {
				return nil, err
			}
			if drop == nil && s.Dedupe {
				k := [2]string{row.Video, row.Question}
				if first, dup := seen[k]; dup {
					drop = &items.Drop{Source: row.Source, ID: row.ID, Reason: "dedupe: repeats the video and question of " + first}
				} else {
					seen[k] = row.Source
				}
			}
			if drop != nil {
				res.Dropped = append(res.Dropped, *drop)
				continue
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

// paths resolves the files to read: those given, else the spec's globs
// relative to its folder, sorted, each once.
func (s *Spec) paths(files []string) ([]string, error) {
	if len(files) > 0 {
		return files, nil
	}
	if len(s.Files) == 0 {
		return nil, fmt.Errorf("spec %s: %w: files: none given, in the spec or on the command line", s.Name, ErrSpec)
	}
	var out []string
	for _, g := range s.Files {
		if !filepath.IsAbs(g) {
			g = filepath.Join(s.dir, g)
		}
		m, err := filepath.Glob(g)
		if err != nil {
			return nil, fmt.Errorf("spec %s: %w: files: %q: %v", s.Name, ErrSpec, g, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("spec %s: %w: files: no file matches %q", s.Name, ErrSpec, g)
		}
		out = append(out, m...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func (s *Spec) keep(rec map[string]any) bool {
	for i := range s.Filters {
		if !s.Filters[i].keep(rec) {
			return false
		}
	}
	return true
}

// row builds the row of record r, the index-th kept. The field names in
// errors are the spec's (fields.video names the template's field).
func (s *Spec) row(r *record, index int, opt items.Options) (items.Row, *items.Drop, error) {
	row := items.Row{
		Source: r.source(), File: r.file, Line: r.line, Rec: r.rec,
		Benchmark: s.Name, GoldIndex: -1, Choice: -1,
		ItemsFrom: "spec " + s.Name,
	}
	text := func(name, t string, required bool) (string, error) {
		tp, _ := compile(t) // checked when the spec was read
		v, ok, err := tp.eval(r.fields)
		if err != nil {
			return "", r.fail(fieldName(name, t), fmt.Errorf("%w: %v", harness.ErrBadValue, err))
		}
		if !ok {
			if required {
				return "", r.fail(fieldName(name, t), fmt.Errorf("%w: the record has no %s (fields.%s: %q)", harness.ErrMissingField, fieldName(name, t), name, t))
			}
			return "", nil
		}
		str, scalar := scalarText(v)
		if !scalar {
			return "", r.fail(fieldName(name, t), fmt.Errorf("%w: a %s, not a text", harness.ErrFieldType, kind(v)))
		}
		return strings.TrimSpace(str), nil
	}
	f := s.Fields
	var err error
	if row.Video, err = text("video", f.Video, true); err != nil {
		return row, nil, err
	}
	if row.Question, err = text("question", f.Question, true); err != nil {
		return row, nil, err
	}
	if row.ID, err = text("id", f.ID, false); err != nil {
		return row, nil, err
	}
	if row.ID == "" {
		row.ID = fmt.Sprintf("%s_%d", s.Name, index)
	}
	if row.Task, err = text("subtask", f.Subtask, false); err != nil {
		return row, nil, err
	}
	if row.Group, err = text("group", f.Group, false); err != nil {
		return row, nil, err
	}
	if row.Group == "" {
		row.Group = s.Group
	}
	if d, err := text("duration", f.Duration, false); err != nil {
		return row, nil, err
	} else if d != "" {
		if sec, err := seconds(d); err == nil {
			row.Duration = &sec
		} else {
			row.DurationGroup = d // a category: "short", "medium", "long"
		}
	}
	for _, b := range []struct {
		name, t string
		dst     **float64
	}{{"start", f.Start, &row.Start}, {"end", f.End, &row.End}} {
		v, err := text(b.name, b.t, false)
		if err != nil {
			return row, nil, err
		}
		if v == "" {
			continue
		}
		sec, err := seconds(v)
		if err != nil {
			return row, nil, r.fail(fieldName(b.name, b.t), fmt.Errorf("%w: %v", harness.ErrBadValue, err))
		}
		*b.dst = &sec
	}
	if len(s.Meta) > 0 {
		row.Meta = maps.Clone(s.Meta)
	}
	opts, err := s.options(r)
	if err != nil {
		return row, nil, err
	}
	if len(opts) == 0 {
		// No option field, or none in this record: the options may be
		// written inside the question.
		if q, in := items.OptionsInQuestion(row.Question); len(in) >= 2 {
			row.Question, opts = q, in
		}
	}
	row.Options, _ = items.StripLetterPrefixes(opts)
	gold, err := text("answer", f.Answer, false)
	if err != nil {
		return row, nil, err
	}
	row.Gold = gold
	drop := func(reason string, open bool) *items.Drop {
		return &items.Drop{Source: row.Source, ID: row.ID, Reason: reason, OpenEnded: open}
	}
	if len(row.Options) < 2 {
		if s.Keep == "mcq" {
			return row, drop("keep: mcq: the record has no options", false), nil
		}
		return row, drop("open-ended: the record has no options", true), nil
	}
	if s.Keep == "mcq" && !singleChoice(gold, len(row.Options)) {
		return row, drop(fmt.Sprintf("keep: mcq: the answer %q is not one option's letter or index", gold), false), nil
	}
	i, open, err := s.gold(gold, row.Options, opt)
	if err != nil {
		return row, nil, r.fail(fieldName("answer", f.Answer), err)
	}
	if open != "" {
		return row, drop("open-ended: "+open, true), nil
	}
	row.GoldIndex = i
	return row, nil, nil
}

// gold reads the answer by the spec's answer_type.
func (s *Spec) gold(g string, options []string, opt items.Options) (int, string, error) {
	switch s.AnswerType {
	case "letter":
		if i := answer.ParseLetter(g, len(options)); i >= 0 {
			return i, "", nil
		}
		if answer.ParseLetter(g, answer.MaxOptions) >= 0 {
			return -1, "", fmt.Errorf("%w: %q is past the %d options", harness.ErrAnswerRange, g, len(options))
		}
		_, open, err := items.Gold(g, options, -1)
		if errors.Is(err, items.ErrAmbiguousIndex) {
			return -1, "", fmt.Errorf("%w: %q is a number, not a letter: set answer_type: index0 or index1", harness.ErrBadValue, g)
		}
		if err == nil && open == "" {
			open = fmt.Sprintf("the answer %q is not a letter (answer_type: letter)", g)
		}
		return -1, open, err
	case "text":
		if i := answer.MatchText(g, options); i >= 0 {
			return i, "", nil
		}
		return -1, fmt.Sprintf("the answer %q is no option's text (answer_type: text)", g), nil
	}
	return items.Gold(g, options, opt.Base(answerTypes[s.AnswerType]))
}

// singleChoice is a gold naming one option by letter or number.
func singleChoice(g string, n int) bool {
	g = strings.TrimSpace(g)
	if answer.ParseLetter(g, n) >= 0 {
		return true
	}
	_, err := number(g)
	return err == nil
}

// fieldName is the record field a spec field reads: the field itself, or
// for a template its first field.
func fieldName(name, t string) string {
	tp, _ := compile(t)
	switch {
	case tp == nil:
		return name
	case tp.field != "":
		return tp.field
	}
	for _, p := range tp.parts {
		if p.field != "" {
			return p.field
		}
	}
	return name
}
