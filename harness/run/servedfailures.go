package run

import (
	"fmt"
)

// DefaultMaxServerFailures is the share of a served role's queries its
// server may fail (after the retries) in a run that still succeeds
// (--max-server-failures): a few items failed with reason "server" are
// reported on the cards and asked again by a resumed run; more than 1%
// means the server, not an item, is at fault (it died mid-run, a key or a
// model name changed), and the run exits 1 saying so.
const DefaultMaxServerFailures = 0.01

// A ServerFailuresError says that a served role's server failed more of
// its queries than Spec.MaxServerFailures allows. The run's outputs are
// written, the failed items marked failed (reason server); none of the
// failed replies was stored, so the same command resumes the run and asks
// those queries alone again.
type ServerFailuresError struct {
	// Role, Model and URL name the role and its server.
	Role, Model, URL string
	// Failed of Queries failed; Max is the share allowed.
	Failed, Queries int
	Max             float64
	// Out is the run directory.
	Out string
	// First is the first failure's message.
	First error
}

func (e *ServerFailuresError) Error() string {
	return fmt.Sprintf("%s's server %s (model %s) failed %d of its %d queries (%.1f%%), more than --max-server-failures %g allows; the first: %v. The outputs in %s are written with those items failed (reason server); once the server answers, run the same command again: it resumes and asks only the failed queries",
		e.Role, e.URL, e.Model, e.Failed, e.Queries, 100*float64(e.Failed)/float64(e.Queries), e.Max, e.First, e.Out)
}

// servedFailures returns a *ServerFailuresError for the first served role
// whose server failed more than max of the queries it was asked this run
// (max 0: DefaultMaxServerFailures), nil when none did.
func servedFailures(rs []servedReader, max float64, out string) error {
	if max == 0 {
		max = DefaultMaxServerFailures
	}
	for _, r := range rs {
		s := r.Stats().Snapshot()
		if s.Queries == 0 || s.Failed == 0 || float64(s.Failed) <= max*float64(s.Queries) {
			continue
		}
		return &ServerFailuresError{Role: s.Role, Model: s.Model, URL: s.URL, Failed: s.Failed, Queries: s.Queries, Max: max, Out: out, First: r.Stats().FirstError()}
	}
	return nil
}
