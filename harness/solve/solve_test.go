package solve

import (
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/models/openai"
)

func TestSolves(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name string
		rule Rule
		a    Answer
		want bool
	}{
		{"confident and correct", Confident, Answer{Scored: true, Correct: true, Margin: 0.8}, true},
		// The defect this package fixes: a big gold margin on a wrong answer.
		{"wrong with a big gold margin", Confident, Answer{Scored: true, Correct: false, Margin: 3}, false},
		{"correct but unsure", Confident, Answer{Scored: true, Correct: true, Margin: 0.5}, false},
		{"exactly log 2 is not above it", Confident, Answer{Scored: true, Correct: true, Margin: math.Ln2}, false},
		{"a seeded guess", Confident, Answer{Scored: true, Abstained: true, Correct: true, Margin: 5}, false},
		{"not scored", Confident, Answer{Correct: true, Margin: 5}, false},
		{"no margin under Confident", Confident, Answer{Scored: true, Correct: true, Margin: nan}, false},
		{"correctness alone", Correct, Answer{Scored: true, Correct: true, Margin: nan}, true},
		{"a learner's guess", Correct, Answer{Scored: true, Abstained: true, Correct: true}, false},
		{"a learner wrong", Correct, Answer{Scored: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rule.Solves(tt.a); got != tt.want {
				t.Errorf("%v.Solves(%+v) = %v, want %v", tt.rule, tt.a, got, tt.want)
			}
		})
	}
}

func TestSolvesOrders(t *testing.T) {
	t.Parallel()
	ok := func(m float64) Answer { return Answer{Scored: true, Correct: true, Margin: m} }
	bad := func(m float64) Answer { return Answer{Scored: true, Margin: m} }
	guess := Answer{Scored: true, Abstained: true, Correct: true, Margin: 9}
	tests := []struct {
		name   string
		rule   Rule
		orders []Answer
		want   bool
	}{
		{"four of four confident", Confident, []Answer{ok(1), ok(1), ok(1), ok(1)}, true},
		{"three of four, mean above log 2", Confident, []Answer{ok(2), ok(2), ok(2), bad(-2)}, true},
		{"three of four, mean below log 2", Confident, []Answer{ok(1), ok(1), ok(1), bad(-2)}, false},
		{"two of four", Confident, []Answer{ok(5), ok(5), bad(5), bad(5)}, false},
		{"a guess is not correct", Confident, []Answer{ok(2), ok(2), guess, bad(2)}, false},
		{"one unsure order is carried by the mean", Confident, []Answer{ok(0.1), ok(1), ok(1), ok(1)}, true},
		{"a fifth order is ignored", Confident, []Answer{ok(1), ok(1), ok(1), bad(0), bad(-100)}, true},
		{"three of four without margins", Correct, []Answer{ok(math.NaN()), ok(math.NaN()), ok(math.NaN()), bad(math.NaN())}, true},
		{"two of four without margins", Correct, []Answer{ok(0), ok(0), bad(0), bad(0)}, false},
		{"one order: it must solve", Confident, []Answer{ok(1)}, true},
		{"two orders: both correct", Confident, []Answer{ok(2), bad(2)}, false},
		{"an unscored order counts at the floor", Confident, []Answer{ok(1), ok(1), ok(1), {}}, false},
		{"none", Confident, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rule.SolvesOrders(tt.orders); got != tt.want {
				t.Errorf("SolvesOrders(%+v) = %v, want %v", tt.orders, got, tt.want)
			}
		})
	}
}

func TestLogFloor(t *testing.T) {
	t.Parallel()
	if LogFloor != math.Log(1e-6) || LogFloor != openai.LogFloor {
		t.Fatalf("LogFloor = %v, want log(1e-6) = %v, the served scorer's floor (openai.LogFloor = %v)", LogFloor, math.Log(1e-6), openai.LogFloor)
	}
}
