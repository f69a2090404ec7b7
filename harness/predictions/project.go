package predictions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
)

// readProject reads the project's layout: {"id", "benchmark", "pred"} with
// pred a 0-based option index (a JSON integer) or the reply as text, and
// optionally question and options (to match by text when ids differ). A
// reply that is only a digit ("0") is text the layout gives no base for:
// Match refuses it unless the user says the base.
func readProject(r io.Reader, name string) ([]Row, error) {
	var rows []Row
	err := items.ReadLines(r, name, func(b []byte, line int) error {
		m, err := items.DecodeLine(b, name, line)
		if err != nil {
			return err
		}
		rec := items.NewRecord(m)
		fail := func(field string, err error) error {
			return &harness.ParseError{File: name, Line: line, Field: field, Err: err}
		}
		row := Row{Source: fmt.Sprintf("%s:%d", name, line), File: name, Line: line, Choice: -1, GoldIndex: -1, HasPrediction: true, ReplyField: "pred"}
		row.ID = rec.Str("id")
		row.Benchmark = rec.Str("benchmark")
		row.Question = rec.Question()
		if row.ID == "" && row.Question == "" {
			return fail("id", fmt.Errorf("%w: give id (and benchmark), or question and options", harness.ErrMissingField))
		}
		if row.Options, _, err = rec.Options(); err != nil {
			return fail("options", fmt.Errorf("%w: %v", harness.ErrFieldType, err))
		}
		v, ok := m["pred"]
		switch x := v.(type) {
		case json.Number:
			i, err := x.Int64()
			if errors.Is(err, strconv.ErrRange) {
				return fail("pred", fmt.Errorf("%w: %s is not an index into the options (0-based)", harness.ErrAnswerRange, x))
			}
			if err != nil {
				return fail("pred", fmt.Errorf("%w: %s is not an integer option index", harness.ErrFieldType, x))
			}
			row.Choice = int(i)
		case string:
			row.Reply = x
		default:
			if !ok {
				return fail("pred", harness.ErrMissingField)
			}
			return fail("pred", fmt.Errorf("%w: got %T, want a 0-based option index or the reply as text", harness.ErrFieldType, v))
		}
		rows = append(rows, row)
		return nil
	})
	return rows, err
}

// sniffJSONL peeks at the first non-blank line: lmms-eval's samples carry
// filtered_resps (and doc) on every line.
func sniffJSONL(br *bufio.Reader) (Format, error) {
	for n := 64 << 10; ; n *= 4 {
		b, err := br.Peek(n)
		line := bytes.TrimLeft(b, " \t\r\n\ufeff")
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		} else if err == nil {
			continue // the first line is longer than what was peeked
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return "", fmt.Errorf("%w: the file is empty", ErrFormat)
		}
		if line[0] != '{' {
			return "", fmt.Errorf("%w: not JSON Lines, an .xlsx, .tsv or .csv table", ErrFormat)
		}
		if bytes.Contains(line, []byte(`"filtered_resps"`)) || bytes.Contains(line, []byte(`"doc"`)) {
			return LMMSEval, nil
		}
		return Project, nil
	}
}
