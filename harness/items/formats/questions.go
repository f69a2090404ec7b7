package formats

import (
	"context"

	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// readFiles reads each of paths with readFile into one result, in the
// order given.
func readFiles(ctx context.Context, paths []string, readFile func(ctx context.Context, path string, res *items.Result) error) (*items.Result, error) {
	res := &items.Result{}
	for _, p := range paths {
		if err := readFile(ctx, p, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// readQuestionList reads the JSON file at path, one list of question
// records (LongVideoBench's lvb_val.json, STAR_val.json, an MLVU task
// file), walking it a record at a time. row makes each record, with its
// 0-based position, a row or a drop; want names the list for the error of
// a file that is not one ("a list of questions (STAR's STAR_val.json)").
func readQuestionList(ctx context.Context, path, want string, res *items.Result, row func(rec *records.Record, n int) (items.Row, *items.Drop, error)) error {
	w, err := records.Open(path)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Enter('[', want); err != nil {
		return err
	}
	for n := 0; w.More(); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := w.Record("a question")
		if err != nil {
			return err
		}
		r, drop, err := row(rec, n)
		if err != nil {
			return err
		}
		keep(res, r, drop)
	}
	if err := w.Leave(); err != nil {
		return err
	}
	return w.End()
}

// keep adds a row to res, or its drop when it has one.
func keep(res *items.Result, row items.Row, drop *items.Drop) {
	if drop != nil {
		res.Dropped = append(res.Dropped, *drop)
		return
	}
	res.Rows = append(res.Rows, row)
}
