package truth

import (
	"math"

	"github.com/vidscreen/vidscreen/harness/metrics"
)

// HolmAttackers is the Holm family size the minimum assumes: the eight
// attackers of the option, text and pool levels an audit without models
// runs (fixed-position, option-artifact, question-match, position-prior,
// copy, siblings, knn-vote, regression). An audit with more attackers
// corrects over more and needs a little more.
const HolmAttackers = 8

// MinItems is the fewest items of chance c (the mean chance of the family's
// items, as the cards' test reads it) on which an attacker right on every
// item can be significant: the exact test's p-value of n correct answers of
// n is c^n, and Holm's correction compares the smallest p-value with
// metrics.Alpha / m over the benchmark's m attackers. Below it a family can
// only be "missed", whatever the auditor does (issue 33.1.9: a 12-video
// world has 2 to 12 items per family and reported "recall 0/7").
func MinItems(c float64, m int) int {
	if !(c > 0 && c < 1) || m < 1 {
		return 0
	}
	return int(math.Floor(math.Log(metrics.Alpha/float64(m))/math.Log(c))) + 1
}

// TooFew reports whether a family of n items of chance c is too small to
// test (MinItems with HolmAttackers).
func TooFew(n int, c float64) bool { return n < MinItems(c, HolmAttackers) }
