package selection

import (
	"testing"

	"github.com/vidscreen/vidscreen/harness/screen"
)

// TestExcludeSuspects: a kept suspect leaves the pool, a removed one
// stays removed and a kept clean one stays kept; --admit-suspects changes
// nothing.
func TestExcludeSuspects(t *testing.T) {
	t.Parallel()
	rows := func() []screen.Row {
		return []screen.Row{{ID: "a", Kept: true, AnswerSuspect: true}, {ID: "b", Kept: false, AnswerSuspect: true}, {ID: "c", Kept: true}}
	}
	for _, tt := range []struct {
		admit bool
		n     int
		kept  []bool
	}{{false, 1, []bool{false, false, true}}, {true, 0, []bool{true, false, true}}} {
		s := &screen.Screen{Rows: rows()}
		if n := excludeSuspects(s, tt.admit); n != tt.n {
			t.Errorf("admit %v: %d left out, want %d", tt.admit, n, tt.n)
		}
		for k, r := range s.Rows {
			if r.Kept != tt.kept[k] {
				t.Errorf("admit %v: %s kept %v, want %v", tt.admit, r.ID, r.Kept, tt.kept[k])
			}
		}
	}
}

// TestQueryRecordsAdmitSuspects: --admit-suspects reaches the release's
// query (and so its lockfile and name) in both modes.
func TestQueryRecordsAdmitSuspects(t *testing.T) {
	t.Parallel()
	for _, admit := range []bool{false, true} {
		for _, s := range []Spec{{Budget: 20, AdmitSuspects: admit}, {Hardest: 3, AdmitSuspects: admit}} {
			if q := s.query(); q.AdmitSuspects != admit {
				t.Errorf("spec budget %d hardest %d admit %v: query admits %v", s.Budget, s.Hardest, admit, q.AdmitSuspects)
			}
		}
	}
}
