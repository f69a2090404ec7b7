package spec

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
)

// The field names Guess looks for, most specific first. Video-MME's
// video_id ("001") is a number and videoID the file, so videoID comes
// first.
var (
	guessVideo    = []string{"video_path", "video", "videoID", "video_name", "video_file", "video_uid", "video_id", "vid", "clip"}
	guessQuestion = []string{"question", "query", "question_text", "q"}
	guessOptions  = []string{"options", "candidates", "choices", "option_list"}
	guessAnswer   = []string{"answer", "gold", "correct_answer", "right_answer", "answer_id", "correct_choice", "label", "ans"}
	guessID       = []string{"question_id", "qid", "q_uid", "uid", "id", "index", "sample_id"}
	guessTask     = []string{"task_type", "task", "question_type", "sub_category", "subtask", "category", "type", "dimension", "area"}
	guessDuration = []string{"duration", "video_duration"}
	guessStart    = []string{"start", "start_time"}
	guessEnd      = []string{"end", "end_time"}
	// Per-option column families: a0..a4 (NExT-QA), "option 0" (EgoSchema),
	// option_0, and the A, B, ... columns of VLMEvalKit's tables.
	guessOptionFamilies = []func(i int) string{
		func(i int) string { return fmt.Sprintf("a%d", i) },
		func(i int) string { return fmt.Sprintf("option %d", i) },
		func(i int) string { return fmt.Sprintf("option_%d", i) },
		func(i int) string { return string(rune('A' + i)) },
	}
)

// Guess builds a spec for annotation files that have none, naming the
// fields by the columns of their first records, and says what it chose
// (for example "video=videoID question=question options=options
// answer=answer subtask=task_type"). It refuses files with no column it
// can take for the video or the question, listing the columns found.
func Guess(name string, files []string) (*Spec, string, error) {
	if len(files) == 0 {
		return nil, "", fmt.Errorf("%w: no files", ErrSpec)
	}
	recs, err := readRecords(files[0], "")
	if err != nil {
		return nil, "", err
	}
	if len(recs) == 0 {
		return nil, "", &harness.ParseError{File: files[0], Err: fmt.Errorf("%w: no records", harness.ErrNoItems)}
	}
	cols := map[string]string{} // lower-cased -> as written
	for _, r := range recs[:min(len(recs), 100)] {
		for k := range r.fields {
			if !strings.HasPrefix(k, "__") {
				cols[strings.ToLower(k)] = k
			}
		}
	}
	pick := func(names []string) string {
		for _, n := range names {
			if c, ok := cols[strings.ToLower(n)]; ok {
				return c
			}
		}
		return ""
	}
	f := Fields{
		Video: pick(guessVideo), Question: pick(guessQuestion), Options: pick(guessOptions),
		Answer: pick(guessAnswer), ID: pick(guessID), Subtask: pick(guessTask),
		Duration: pick(guessDuration), Start: pick(guessStart), End: pick(guessEnd),
	}
	if f.Options == "" {
		for _, fam := range guessOptionFamilies {
			var got []string
			for i := 0; ; i++ {
				c, ok := cols[strings.ToLower(fam(i))]
				if !ok {
					break
				}
				got = append(got, c)
			}
			if len(got) >= 2 {
				f.OptionFields = got
				break
			}
		}
	}
	if f.Video == "" || f.Question == "" {
		found := make([]string, 0, len(cols))
		for _, c := range cols {
			found = append(found, c)
		}
		slices.Sort(found)
		return nil, "", &harness.ParseError{File: files[0], Err: fmt.Errorf("%w: field detection failed (video=%s, question=%s); the columns are %s: write a spec (vidscreen import spec)",
			harness.ErrMissingField, orNone(f.Video), orNone(f.Question), strings.Join(found, ", "))}
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(files[0]), filepath.Ext(files[0]))
	}
	s := &Spec{Name: name, Fields: f, dir: "."}
	if err := s.check(); err != nil {
		return nil, "", err
	}
	return s, describe(f), nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// describe names the chosen fields, in a fixed order.
func describe(f Fields) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("id", f.ID)
	add("video", f.Video)
	add("question", f.Question)
	add("options", f.Options)
	if len(f.OptionFields) > 0 {
		add("option_fields", strings.Join(f.OptionFields, ","))
	}
	add("answer", f.Answer)
	add("subtask", f.Subtask)
	add("duration", f.Duration)
	add("start", f.Start)
	add("end", f.End)
	return strings.Join(parts, " ")
}
