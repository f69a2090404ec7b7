package metrics

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness/answercheck"
)

// AnswerCheck is what a card says of the answer-verification stage
// (--verify-answers; harness/answercheck, the authors' compose/verify.py)
// on its benchmark's items: how many the verifier was asked about, how many
// it asked again at 512 frames, its final verdicts, and how many items it
// keeps and flags answer_suspect, by reason. A stage that could not run
// has Ran false and a Note saying why.
type AnswerCheck struct {
	Ran      bool   `json:"ran"`
	Verifier string `json:"verifier,omitempty"`
	Note     string `json:"note,omitempty"`
	Items    int    `json:"items"`
	// Asked leaves out the ordering questions the authors do not send
	// (answercheck.Asked); Rechecked counts the second pass.
	Asked     int `json:"asked"`
	Rechecked int `json:"rechecked"`
	// Verdicts counts the final verdicts; items without one are in
	// Reasons' no_verdict.
	Verdicts map[string]int `json:"verdicts"`
	Kept     int            `json:"kept"`
	Suspect  int            `json:"answer_suspect"`
	Reasons  map[string]int `json:"reasons"`
}

// AnswerChecks counts the stage's records per benchmark.
func AnswerChecks(records []answercheck.Record, verifier string) map[string]*AnswerCheck {
	out := map[string]*AnswerCheck{}
	for _, r := range records {
		c := out[r.Benchmark]
		if c == nil {
			c = &AnswerCheck{Ran: true, Verifier: verifier, Verdicts: map[string]int{}, Reasons: map[string]int{}}
			out[r.Benchmark] = c
		}
		c.Items++
		if r.Asked {
			c.Asked++
		}
		if answercheck.Recheck(r.First) && r.Asked {
			c.Rechecked++
		}
		if r.Verdict != "" {
			c.Verdicts[r.Verdict]++
		}
		if r.Keep {
			c.Kept++
		} else {
			c.Suspect++
		}
		c.Reasons[r.Reason]++
	}
	for _, c := range out {
		if n := c.Reasons[answercheck.ReasonNoVerdict]; n > 0 {
			c.Note = fmt.Sprintf("%d of %d items have no verdict (an ordering question, a failed video, a prompt that fitted no frame, or a server that failed it): they are answer_suspect, as the authors drop an item without one", n, c.Items)
		}
	}
	return out
}

// WithAnswerChecks puts each benchmark's AnswerCheck on its card.
func WithAnswerChecks(cards []Card, by map[string]*AnswerCheck) {
	for k := range cards {
		cards[k].AnswerCheck = by[cards[k].Benchmark]
	}
}
