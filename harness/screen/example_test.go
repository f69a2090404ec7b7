package screen_test

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness/screen"
)

// A blind model reader and a shuffled-frames reader on three items: a
// reader solves an item when it answers it with a margin above log 2, the
// funnel removes each item at the first step that solves it, and the
// consensus counts each test's models that answer correctly, whatever
// their margin (Video-Oasis; one model each here: a shortcut at c = 1, and
// "hesitant", which no step removes, is one).
func ExampleCompute() {
	verdict := func(att string, choice int32, margin float64) screen.Verdict {
		return screen.Verdict{Attacker: att, Scored: true, Choice: choice, Correct: choice == 0, Margin: margin}
	}
	row := func(id string, vs ...screen.Verdict) screen.Row {
		return screen.Row{ID: id, Benchmark: "B", Options: []string{"a cat", "a dog"}, Cluster: -1, Verdicts: vs}
	}
	in := &screen.Input{
		Attackers: []screen.Attacker{{Name: "blind-reader", Level: "text"}, {Name: "shuffled-frames-reader", Level: "order"}},
		Rows: []screen.Row{
			row("confident", verdict("blind-reader", 0, 1.2), verdict("shuffled-frames-reader", 0, 0.9)),
			row("hesitant", verdict("blind-reader", 0, 0.3), verdict("shuffled-frames-reader", 1, -0.4)),
			row("shuffled", verdict("blind-reader", 1, -0.2), verdict("shuffled-frames-reader", 0, 2.0)),
		},
	}
	s, err := screen.Compute(in, screen.Options{})
	if err != nil {
		panic(err)
	}
	for _, r := range s.Rows {
		fmt.Printf("%s: kept %v, removed by %q, solved by %v, sensitivity %v\n", r.ID, r.Kept, r.RemovedBy, r.SolvedBy, r.Sensitivity)
	}
	b := s.Consensus.Benchmarks[0]
	fmt.Printf("shortcuts at c = 1, 2, 3: %v of %d\n", b.Shortcuts, b.Items)
	// Output:
	// confident: kept false, removed by "blind-reader", solved by [blind-reader shuffled-frames-reader], sensitivity true
	// hesitant: kept true, removed by "", solved by [], sensitivity false
	// shuffled: kept false, removed by "shuffled-frames-reader", solved by [shuffled-frames-reader], sensitivity true
	// shortcuts at c = 1, 2, 3: [3 0 0] of 3
}
