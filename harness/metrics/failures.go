package metrics

import "github.com/vidscreen/vidscreen/harness"

// CountFailures fills each card's Failures: failures[i] is why item i's
// video gave no features ("" when it did, or when no video level ran).
func CountFailures(cards []Card, items []*harness.Item, failures []string) {
	at := map[string]*Card{}
	for k := range cards {
		at[cards[k].Benchmark] = &cards[k]
	}
	for i, f := range failures {
		if f == "" {
			continue
		}
		c := at[items[i].Benchmark]
		if c == nil {
			continue
		}
		if c.Failures == nil {
			c.Failures = map[string]int{}
		}
		c.Failures[f]++
	}
}
