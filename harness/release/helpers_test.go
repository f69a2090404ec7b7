package release

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

// cand is a compact description of a test candidate.
type cand struct {
	id, source, video, task, scene string
	// question is the item's question; "" gives one of its own, whose
	// template no other item shares (idQuestion).
	question               string
	dur                    float64 // seconds; < 0 for unknown
	template, templateSize int
	margin                 float64 // the one attacker's margin (lower is harder)
}

// testPool builds a pool of one attacker ("a", option level, not pooled)
// from cs; each item has four options and answer 0.
func testPool(t testing.TB, cs []cand) *Pool {
	t.Helper()
	out := make([]Candidate, len(cs))
	for k, c := range cs {
		q := c.question
		if q == "" {
			q = idQuestion(c.id)
		}
		it := &harness.Item{ID: c.id, Benchmark: c.source, Video: c.video, Task: c.task,
			Question: q, Options: []string{"w", "x", "y", "z"}}
		if c.dur >= 0 {
			d := c.dur
			it.Duration = &d
		}
		out[k] = Candidate{Item: it, Scene: c.scene, Template: c.template, TemplateSize: c.templateSize,
			Verdicts: []Verdict{{Scored: true, Margin: c.margin}}}
	}
	p, err := NewPool([]Attacker{{Name: "a", Level: harness.LevelOption}}, out)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// idQuestion is a question naming id with its digits spelled as letters,
// so that no two ids share a question template (a number is <NUM>).
func idQuestion(id string) string {
	return "what happens in " + strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'a' + (r - '0')
		}
		return r
	}, id) + "?"
}

// ids lists the item ids of picks.
func ids(p *Pool, picks []int) []string {
	out := make([]string, len(picks))
	for k, i := range picks {
		out[k] = p.Candidates[i].Item.ID
	}
	return out
}

// many makes n candidates of one source, each on its own video.
func many(source, task string, n int, dur float64) []cand {
	out := make([]cand, n)
	for i := range out {
		out[i] = cand{id: fmt.Sprintf("%s-%s-%d", source, task, i), source: source, video: fmt.Sprintf("%s-v%d-%s", source, i, task),
			task: task, dur: dur, template: -1 - i, templateSize: 1, margin: float64(i)}
	}
	return out
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
