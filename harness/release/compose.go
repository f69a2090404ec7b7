package release

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/vidscreen/vidscreen/harness"
)

// A Spec is everything a release is made from besides its pool.
type Spec struct {
	Query Query
	Seed  uint64
	// Rounds bounds the red-team gate's rounds of drop and refill.
	Rounds int
	Team   RedTeam
	// Attack is the attackers' configuration as the audit resolved it, and
	// Embedder and Rule say how the team re-runs them; all three go into
	// the lockfile as given.
	Attack   json.RawMessage
	Embedder string
	Rule     string
	// Run identifies the audit the pool came from and Screen is the
	// screening's configuration, for the lockfile (either may be empty).
	Run    string
	Screen json.RawMessage
	// Videos says what identified a video for the one-per-video cap
	// (IdentifyVideos), for the lockfile and the report; empty means the
	// video id.
	Videos string
}

// A Release is a gated selection registered under its name.
type Release struct {
	Name     string
	Lockfile *Lockfile
	// Items are the released items: options in their released order,
	// answer updated, benchmark the release name.
	Items []*harness.Item
	Gated *Gated
	Pool  *Pool
}

// VideosByID is Lockfile.Pool.Videos when no video was read: the video id
// identifies a video for the one-per-video cap.
const VideosByID = "video id (no --videos: one clip under two names counts as two videos)"

// Compose draws a selection for spec.Query from p, puts it through the
// red-team gate and registers it: each item's options shuffled (seeded),
// the lockfile filled, and the release named by the lockfile's hash.
func Compose(ctx context.Context, p *Pool, spec Spec) (*Release, error) {
	if spec.Team == nil {
		return nil, errors.New("compose: no red team")
	}
	g, err := Gate(ctx, p, spec.Query, spec.Seed, spec.Team, spec.Rounds)
	if err != nil {
		return nil, err
	}
	l := &Lockfile{Vidscreen: harness.Version, Selector: SelectorVersion, Query: spec.Query, Seed: spec.Seed,
		Attackers: p.Attackers, Attack: spec.Attack, Rounds: g.Rounds, Relaxations: g.Selection.Relaxations,
		Shortfall: g.Selection.Shortfall}
	if l.Relaxations == nil {
		l.Relaxations = []Relaxation{}
	}
	if len(l.Attack) == 0 {
		l.Attack = json.RawMessage("null")
	}
	l.Pool.Snapshot = p.Snapshot()
	l.Pool.Items = len(p.Candidates)
	l.Pool.Run = spec.Run
	l.Pool.Screen = spec.Screen
	l.Pool.Videos = spec.Videos
	if l.Pool.Videos == "" {
		l.Pool.Videos = VideosByID
	}
	l.RedTeam.MaxRounds = spec.Rounds
	l.RedTeam.Embedder = spec.Embedder
	l.RedTeam.Rule = spec.Rule
	l.RedTeam.Rerun, l.RedTeam.Carried = []string{}, []string{}
	if g.Residual != nil {
		for _, a := range g.Residual.Attackers {
			if a.Rerun {
				l.RedTeam.Rerun = append(l.RedTeam.Rerun, a.Name)
			} else {
				l.RedTeam.Carried = append(l.RedTeam.Carried, a.Name)
			}
		}
	}
	orders := make([][]int, len(g.Selection.Picks))
	kept := make([]string, len(g.Selection.Picks))
	l.Items = make([]LockedItem, len(g.Selection.Picks))
	for k, i := range g.Selection.Picks {
		it := p.Candidates[i].Item
		orders[k], kept[k] = optionOrder(it, spec.Seed)
		l.Items[k] = LockedItem{Source: it.Benchmark, ID: it.ID, Order: orders[k]}
	}
	name, err := l.Name()
	if err != nil {
		return nil, err
	}
	l.Release = name
	r := &Release{Name: name, Lockfile: l, Gated: g, Pool: p}
	for k, i := range g.Selection.Picks {
		it, err := releasedItem(p.Candidates[i].Item, name, orders[k], kept[k])
		if err != nil {
			return nil, err
		}
		r.Items = append(r.Items, it)
	}
	return r, nil
}
