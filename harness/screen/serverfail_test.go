package screen

import (
	"testing"

	"github.com/vidscreen/vidscreen/models/letters"
)

// TestFunnelServerFailurePending: an item whose served reader's server
// failed (reason server) is pending at the funnel's first attacker step,
// a text one, though options-reader solved it: neither removed nor kept,
// as a failed video's item is at the steps that read its video.
func TestFunnelServerFailurePending(t *testing.T) {
	t.Parallel()
	in := fixture()
	in.Rows[0].Failure = letters.FailureServer // a1, solved by options-reader
	s, err := Compute(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Rows[0]
	if r.ID != "a1" || r.Pending != or || r.RemovedBy != "" || r.Kept {
		t.Errorf("row %s: pending %q removed_by %q kept %v; want pending at %s", r.ID, r.Pending, r.RemovedBy, r.Kept, or)
	}
	if s.Benchmarks[0].Pending != 2 {
		t.Errorf("benchmark A: %d pending, want 2 (a1 and a6)", s.Benchmarks[0].Pending)
	}
}
