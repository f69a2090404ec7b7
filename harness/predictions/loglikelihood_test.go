package predictions

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// egoMCPPLLine is a line of lmms-eval's egoschema_subset_mcppl samples
// (v0.7): the bare question as the prompt (doc_to_text: "question"), one
// str()'d [log-likelihood, is-greedy] pair per option, and the task's own
// pick in score.pred with the q_uid in submission.
func egoMCPPLLine(pairs string, pred string) string {
	return `{"doc_id": 0, "target": "3", "filtered_resps": ` + pairs + `, "doc_hash": "a1", "input": "How does the woman help c?", ` +
		`"submission": {"0074f737-11cb-497d-8d07-77c3a8127391": ` + pred + `}, "score": {"pred": ` + pred + `, "ground_truth": "3"}}` + "\n"
}

// TestLogLikelihoodLogMatchesTheAuditsItems: audit --predictions on such a
// log takes the options from the audit's item (matched by the q_uid), the
// task's pick as the answer, and refuses a log scoring another number of
// options than the item has.
func TestLogLikelihoodLogMatchesTheAuditsItems(t *testing.T) {
	t.Parallel()
	it := &harness.Item{ID: "0074f737-11cb-497d-8d07-77c3a8127391", Benchmark: "EgoSchema", Video: "0074f737-11cb-497d-8d07-77c3a8127391",
		Question: "How does the woman help c?", Options: []string{"she cuts pods", "she pours water", "she sweeps", "she sings", "she leaves"}, Answer: 3}
	five := `[["-14.25", "False"], ["-9.5", "False"], ["-20.0", "False"], ["-11.0", "False"], ["-8.0", "False"]]`
	six := `[["-14.25", "False"], ["-9.5", "False"], ["-20.0", "False"], ["-11.0", "False"], ["-8.0", "False"], ["-1.0", "False"]]`
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		want       int
		err        error
	}{
		{"five pairs, the task's pick", egoMCPPLLine(five, "2"), 2, nil},
		{"six pairs for five options", egoMCPPLLine(six, "2"), -1, harness.ErrAnswerRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "20251020_080910_samples_egoschema_subset_mcppl.jsonl")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			rows, _, err := Read(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				rows[i].Benchmark = "EgoSchema" // --benchmark names it
			}
			got, _, err := Match(rows, []*harness.Item{it}, -1)
			if tc.err != nil {
				var pe *harness.ParseError
				if !errors.As(err, &pe) || pe.Line != 1 || !errors.Is(err, tc.err) {
					t.Errorf("error %v; want line 1 wrapping %v", err, tc.err)
				}
				return
			}
			if err != nil || got[it.Key()] != tc.want {
				t.Errorf("choices %v, %v; want %d", got, err, tc.want)
			}
		})
	}
}
