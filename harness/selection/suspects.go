package selection

import "github.com/vidscreen/vidscreen/harness/screen"

// excludeSuspects keeps the items the run's answer verification flags
// answer_suspect (screen.Row.AnswerSuspect) out of the candidate pool,
// unless admit (--admit-suspects): the authors release only items whose
// marked answer their verifier kept (compose/verify.py). It marks them
// not kept in s, which is the selection's own copy, and returns how many.
func excludeSuspects(s *screen.Screen, admit bool) int {
	if admit {
		return 0
	}
	n := 0
	for i := range s.Rows {
		if r := &s.Rows[i]; r.Kept && r.AnswerSuspect {
			r.Kept = false
			n++
		}
	}
	return n
}
