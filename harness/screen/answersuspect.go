package screen

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness/answercheck"
)

// readAnswerCheck reads the run's answer verification (answercheck.File,
// written by the audit with --verify-answers) into in's rows: each row the
// verifier does not keep is AnswerSuspect, with the keep reason in
// AnswerCheck (Video-Index's compose/verify.py keep_rule). A run without
// the file leaves the rows as they are; one whose file names an item the
// run does not have, or misses one it has, is an error naming the file.
func readAnswerCheck(dir string, in *Input) error {
	f, err := answercheck.Read(dir)
	if err != nil || f == nil {
		return err
	}
	at := make(map[string]*answercheck.Record, len(f.Items))
	for k := range f.Items {
		r := &f.Items[k]
		at[r.Benchmark+"\x00"+r.ID] = r
	}
	suspect := 0
	for i := range in.Rows {
		row := &in.Rows[i]
		r, ok := at[row.Key()]
		if !ok {
			return fmt.Errorf("%s: no verdict record for item %s of %s, which the run has", answercheck.FileName, row.ID, row.Benchmark)
		}
		delete(at, row.Key())
		row.AnswerSuspect, row.AnswerCheck = r.Suspect(), r.Reason
		if r.Suspect() {
			suspect++
		}
	}
	for _, r := range at {
		return fmt.Errorf("%s: a verdict record for item %s of %s, which the run does not have", answercheck.FileName, r.ID, r.Benchmark)
	}
	in.Notes = append(in.Notes, fmt.Sprintf("answer verification by %s (%s, rechecked on %s): %d of %d items answer_suspect; they stay out of a selection unless it admits suspects",
		f.Verifier, f.FirstSampler, f.RecheckSampler, suspect, len(in.Rows)))
	return nil
}

// countSuspects sets each summary's AnswerSuspect from the rows, when the
// run verified answers (any row has a keep reason).
func countSuspects(s *Screen) {
	verified := false
	for i := range s.Rows {
		verified = verified || s.Rows[i].AnswerCheck != ""
	}
	if !verified {
		return
	}
	at := map[string]int{}
	for i := range s.Rows {
		if s.Rows[i].AnswerSuspect {
			at[s.Rows[i].Benchmark]++
		}
	}
	for k := range s.Benchmarks {
		n := at[s.Benchmarks[k].Benchmark]
		s.Benchmarks[k].AnswerSuspect = &n
	}
}
