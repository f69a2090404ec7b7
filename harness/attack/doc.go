// Package attack holds the attackers of the audit: each answers benchmark
// items with less access than the benchmark claims to need (Video-Index
// sections 2-3; docs/attackers.md, the attack pyramid). Each attacker is one small
// file behind the Attacker interface:
//
//	option level  fixed-position   modal earlier gold position        fixedposition.go
//	              option-artifact  conditional logit on option text   optionartifact.go
//	text level    question-match   lexical question-option overlap    lexicalmatch.go
//	pool level    position-prior   L0: gold position by question type positionprior.go
//	              copy             L1: nearest earlier question >= 0.9 copy.go
//	              siblings         L2: learned rules over same-video  siblings.go
//	                               items
//	              knn-vote         L3: vote of the 8 nearest earlier  knn.go
//	              regression       online logistic regression on      regression.go
//	                               question+options embeddings
//
// A run hands each attacker a Stream: the items in one seeded order (Orders)
// with their embedding rows permuted alike. An attacker that learns from
// other items (Prequential) answers the item at position i from the gold
// answers of positions before i only, and within the item's own benchmark
// only (the within-pool store of Video-Index, appendix tables 14-15); it runs
// on Config.Orders orders (Variants), the rotating splits of Orders, and
// metrics scores it on the fold each order puts last (Scored), so that over
// five orders every item is scored exactly once. The lexical matcher learns nothing and runs once. An attacker with
// nothing to go on returns a seeded guess flagged as an abstention.
//
// Every attacker is deterministic: the same items, embeddings and seed give
// bit-identical predictions at any kernel thread count.
package attack
