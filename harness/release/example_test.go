package release_test

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
)

// Two sources of three items each, one item per video, and a budget of four:
// the coverage pass gives each source its hardest item, then the 5% source
// cap (one item per source) stops the duration group, which climbs the
// relaxation ladder of Video-Index's pool/select.py: its scene cap up to
// 4, its template cap doubled, then the source cap lifted. The sources
// then take turns again.
func ExampleSelect() {
	var cands []release.Candidate
	for _, src := range []string{"nextqa", "star"} {
		for i := range 3 {
			d := 12.0
			it := &harness.Item{ID: fmt.Sprint(i), Benchmark: src, Video: fmt.Sprintf("%s-%d", src, i), Task: "order",
				Duration: &d, Options: []string{"a", "b", "c", "d"}}
			// Lower margins are harder: item 0 is each source's hardest.
			cands = append(cands, release.Candidate{Item: it, Template: len(cands), TemplateSize: 1,
				Verdicts: []release.Verdict{{Scored: true, Margin: float64(i)}}})
		}
	}
	pool, err := release.NewPool([]release.Attacker{{Name: "copy", Level: harness.LevelPool, Pooled: true}}, cands)
	if err != nil {
		panic(err)
	}
	sel, err := release.Select(pool, release.Query{Budget: 4}, 1, nil, nil)
	if err != nil {
		panic(err)
	}
	for _, i := range sel.Picks {
		it := pool.Candidates[i].Item
		fmt.Println(it.Benchmark, it.ID)
	}
	for _, r := range sel.Relaxations {
		fmt.Printf("after %d items: %s %s -> %s\n", r.Selected, r.Cap, r.From, r.To)
	}
	// Output:
	// nextqa 0
	// star 0
	// star 1
	// nextqa 1
	// after 2 items: per_scene 1 -> 2
	// after 2 items: per_scene 2 -> 3
	// after 2 items: per_scene 3 -> 4
	// after 2 items: per_template 5 -> 10
	// after 2 items: per_source 5% of the budget (1 item) -> lifted
}
