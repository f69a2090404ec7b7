// Package solve holds the one rule by which an attacker's answer solves an
// item. The cards' solved share, screening, the Video-Oasis consensus and
// the red-team gate all apply it, so that an item counted as solved in one
// place is counted as solved in every other.
//
// The rule is the Video-Index authors' pool screen (Video-Index 5.1; their
// video_index/pool/screen.py and logprobs.py): an attacker solves an item
// only when it answers it. A model reader that gives log-probabilities
// answers when its top option is the gold one AND log p(gold) - mean log
// p(others) > log 2. A reader without log-probabilities, and any attacker
// that is not a model reader, answers when its choice is the gold one. The
// options-only and blind readers are judged over four seeded option orders:
// at least three of the four correct AND (with log-probabilities) the mean
// margin over the four above log 2. A seeded guess, an abstention or an
// unscored answer never solves.
package solve

import "math"

// Threshold is the margin above which a confident reader solves an item:
// log 2, the authors' pool screen (Video-Index 5.1).
const Threshold = math.Ln2

// LogFloor is the log-probability given to an option letter absent from the
// reader's top 20 log-probabilities: log(1e-6), the authors' floor
// (video_index/pool/logprobs.py), so margins compare with theirs. The served
// letter scorer (models/openai) floors the letters it scores at its own
// openai.LogFloor: the models layer may not import the harness, and a rule
// need not import an HTTP client for one number; the test holds the two
// equal.
const LogFloor = -13.815510557964274 // math.Log(1e-6)

// Orders and MinCorrect are the text readers' multi-order rule: at least
// MinCorrect of Orders seeded option orders correct (Video-Index 5.1:
// options-only and blind readers over four orders, three of four).
const (
	Orders     = 4
	MinCorrect = 3
)

// A Rule says what an answer must show to solve an item.
type Rule uint8

const (
	// Correct: the choice is the gold option. Learners, embedding
	// matchers, and model readers whose server gives no log-probabilities.
	Correct Rule = iota
	// Confident: correct AND margin > Threshold. Model readers that score
	// the option letters by log-probability.
	Confident
)

func (r Rule) String() string {
	if r == Confident {
		return "correct and margin > log 2"
	}
	return "correct"
}

// An Answer is one attacker's answer to one item on one option order.
type Answer struct {
	// Scored is true when the attacker answered this item on this order
	// (it was in the order's scored part and did not fail).
	Scored bool
	// Abstained is true when the attacker had nothing to go on and its
	// choice is a seeded guess (or absent).
	Abstained bool
	// Correct is true when the choice is the gold option.
	Correct bool
	// Margin is log p(gold) - mean log p(others); used by Confident only.
	Margin float64
}

// answered reports whether a is an answer at all: scored and not a guess.
func (a Answer) answered() bool { return a.Scored && !a.Abstained }

// Solves reports whether a solves its item under r, on one order.
func (r Rule) Solves(a Answer) bool {
	if !a.answered() || !a.Correct {
		return false
	}
	if r == Confident {
		return !math.IsNaN(a.Margin) && a.Margin > Threshold
	}
	return true
}

// SolvesOrders reports whether the answers of one attacker to one item over
// several seeded option orders solve it: at least MinCorrect of Orders
// correct (scaled, rounding up, when fewer orders exist: every one of one,
// two of two, three of three) and, under Confident, the mean margin over
// the orders above Threshold. Only the first Orders answers count (the
// authors' four orders). An unscored or abstained order counts as wrong and
// its margin as the floor's, so that a missing order can never raise the
// mean.
func (r Rule) SolvesOrders(orders []Answer) bool {
	if len(orders) > Orders {
		orders = orders[:Orders]
	}
	n := len(orders)
	if n == 0 {
		return false
	}
	need := (MinCorrect*n + Orders - 1) / Orders
	correct := 0
	sum := 0.0
	for _, a := range orders {
		if a.answered() && a.Correct {
			correct++
		}
		m := a.Margin
		if !a.answered() || math.IsNaN(m) {
			m = LogFloor
		}
		sum += m
	}
	if correct < need {
		return false
	}
	if r == Confident {
		return sum/float64(n) > Threshold
	}
	return true
}
