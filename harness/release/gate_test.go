package release

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// plantedTeam solves every item whose id is in planted, whatever the
// selection around it.
type plantedTeam struct {
	planted map[string]bool
	calls   int
}

func (t *plantedTeam) Attack(ctx context.Context, p *Pool, picks []int) (*Attack, error) {
	t.calls++
	a := &Attack{Solvers: make([][]string, len(picks))}
	for k, i := range picks {
		if t.planted[p.Candidates[i].Item.ID] {
			a.Solvers[k] = []string{"a"}
		}
	}
	return a, nil
}

func TestGateDropsSolvedItemsAndRefills(t *testing.T) {
	t.Parallel()
	p := testPool(t, many("A", "t", 10, 5))
	// The three hardest items are solved: the first selection takes them,
	// the gate drops them and refills with the next three.
	team := &plantedTeam{planted: map[string]bool{"A-t-0": true, "A-t-1": true, "A-t-2": true}}
	g, err := Gate(context.Background(), p, Query{Budget: 4, Caps: noCaps()}, 1, team, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(p, g.Selection.Picks)
	if want := []string{"A-t-3", "A-t-4", "A-t-5", "A-t-6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("release %v, want %v", got, want)
	}
	if len(g.Rounds) != 2 || g.Rounds[0].Dropped != 3 || g.Rounds[1].Solved != 0 {
		t.Errorf("rounds %+v, want 3 dropped then a clean attack", g.Rounds)
	}
	if team.calls != 2 {
		t.Errorf("%d attacks, want 2", team.calls)
	}
}

func TestGateStopsAfterItsRounds(t *testing.T) {
	t.Parallel()
	p := testPool(t, many("A", "t", 10, 5))
	planted := map[string]bool{}
	for _, c := range p.Candidates {
		planted[c.Item.ID] = true // everything falls
	}
	team := &plantedTeam{planted: planted}
	g, err := Gate(context.Background(), p, Query{Budget: 2, Caps: noCaps()}, 1, team, 2)
	if err != nil {
		t.Fatal(err)
	}
	if team.calls != 3 || len(g.Rounds) != 3 {
		t.Fatalf("%d attacks, %d rounds; want 3 (two of drop and refill, then the residual)", team.calls, len(g.Rounds))
	}
	last := g.Rounds[2]
	if last.Solved != 2 || last.Dropped != 0 {
		t.Errorf("last round %+v: want 2 solved, none dropped (the bound is reached)", last)
	}
	if got := ids(p, g.Selection.Picks); !reflect.DeepEqual(got, []string{"A-t-4", "A-t-5"}) {
		t.Errorf("release %v", got)
	}
}

func TestGateWithZeroRoundsOnlyMeasures(t *testing.T) {
	t.Parallel()
	p := testPool(t, many("A", "t", 4, 5))
	team := &plantedTeam{planted: map[string]bool{"A-t-0": true}}
	g, err := Gate(context.Background(), p, Query{Budget: 2, Caps: noCaps()}, 1, team, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ids(p, g.Selection.Picks), "A-t-0") || g.Rounds[0].Solved != 1 || g.Rounds[0].Dropped != 0 {
		t.Errorf("rounds %+v picks %v", g.Rounds, ids(p, g.Selection.Picks))
	}
}
