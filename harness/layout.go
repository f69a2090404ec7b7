package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vidscreen/vidscreen/harness/answer"
)

// normalizeLayout rewrites, in place, the layouts that benchmark files
// commonly use into the item schema before the fields are decoded, so that
// a user's own file is read as it is:
//
//   - an integer id (VLMEvalKit's index, many HF datasets) becomes its
//     decimal string;
//   - options given under "candidates" (MVBench, LongVideoBench), or as
//     separate "A", "B", ... columns (VLMEvalKit's tables) become the
//     options list, the columns read from A up to the first absent or null
//     one;
//   - an answer given as a letter ("B", "(B)") or as the text of exactly
//     one option becomes its 0-based index.
//
// A number in "answer" stays what it always was, a 0-based index. A string
// answer that is neither a letter nor one option's text is an error naming
// the field; so is a string of digits, whose base cannot be known.
func normalizeLayout(obj map[string]json.RawMessage) (field string, err error) {
	if v, ok := obj["id"]; ok && kindOf(v) == "number" {
		n := bytes.TrimSpace(v)
		if bytes.ContainsAny(n, ".eE") {
			return "id", fieldError(ErrFieldType, "%s is not an integer or a string", n)
		}
		obj["id"], _ = json.Marshal(string(n))
	}
	if _, ok := obj["options"]; !ok {
		if v, ok := obj["candidates"]; ok {
			obj["options"] = v
		} else if opts, ok := letterColumns(obj); ok {
			obj["options"], _ = json.Marshal(opts)
		}
	}
	v, ok := obj["answer"]
	if !ok || kindOf(v) != "string" {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", nil // the field decoder names the problem
	}
	var opts []string
	if json.Unmarshal(obj["options"], &opts) != nil || len(opts) == 0 {
		return "", nil // the options' own error comes first
	}
	if strings.Trim(s, "0123456789 ") == "" && strings.TrimSpace(s) != "" && answer.MatchText(s, opts) < 0 {
		return "answer", fieldError(ErrFieldType, "%q: a number as a string could count from 0 or 1; give the index as a number (0-based), a letter or the option's text", s)
	}
	i := answer.Gold(s, opts)
	if i < 0 {
		return "answer", fieldError(ErrAnswerRange, "%q is neither an option letter (A-%s) nor the text of exactly one of the %d options", s, answer.Letter(min(len(opts), answer.MaxOptions)-1), len(opts))
	}
	obj["answer"] = json.RawMessage(fmt.Sprint(i))
	return "", nil
}

// letterColumns reads options held in "A", "B", ... fields: from A up to the
// first absent or null one; ok is false unless A and B are both there.
func letterColumns(obj map[string]json.RawMessage) ([]string, bool) {
	var opts []string
	for i := range answer.MaxOptions {
		v, ok := obj[answer.Letter(i)]
		if !ok || kindOf(v) == "null" {
			break
		}
		var s string
		if kindOf(v) != "string" || json.Unmarshal(v, &s) != nil {
			s = string(bytes.TrimSpace(v)) // a number as an option: its text
		}
		opts = append(opts, s)
	}
	return opts, len(opts) >= 2
}
