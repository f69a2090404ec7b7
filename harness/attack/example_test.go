package attack_test

import (
	"context"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

// A prequential pass: the fixed-position attacker answers each item from the
// gold positions of the items before it, abstaining (with a seeded guess)
// when it has seen none.
func ExampleAttackers() {
	items := []*harness.Item{
		{ID: "1", Benchmark: "B", Question: "q1", Options: []string{"a", "b", "c"}, Answer: 1},
		{ID: "2", Benchmark: "B", Question: "q2", Options: []string{"a", "b", "c"}, Answer: 1},
		{ID: "3", Benchmark: "B", Question: "q3", Options: []string{"a", "b", "c"}, Answer: 2},
		{ID: "4", Benchmark: "B", Question: "q4", Options: []string{"a", "b", "c"}, Answer: 0},
	}
	cfg := attack.DefaultConfig()
	cfg.Levels = []harness.Level{harness.LevelOption}
	fixed := attack.Attackers(cfg)[0]
	preds, err := fixed.Attack(context.Background(), &attack.Stream{Seed: 1, Items: items})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range preds {
		fmt.Printf("%s: %s chose %d (gold %d, abstained %v)\n", items[i].ID, fixed.Name(), p.Choice, items[i].Answer, p.Abstain)
	}
	// Output:
	// 1: fixed-position chose 0 (gold 1, abstained true)
	// 2: fixed-position chose 1 (gold 1, abstained false)
	// 3: fixed-position chose 1 (gold 2, abstained false)
	// 4: fixed-position chose 1 (gold 0, abstained false)
}
