package release

import (
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
)

// The reasons an attacker of the pool is reported beside the selection's
// pyramid rather than in it. The cards keep the same attackers out of every
// level's eps and out of the Holm family (metrics.levels and
// metrics.correct), so the release's residual must too: a residual eps_order
// set by full-video-reader would call the reference protocol itself a
// shortcut of the released items.
const (
	// AsideScreening: a screening step only (attack.ScreeningOnly:
	// full-video-reader, shuffled-frames-screen-reader). 32 frames in order
	// is the reference protocol (Video-Index 3.6, 5.1).
	AsideScreening = "screening step only"
	// AsideCrossPool: a cross-pool variant (attack.CrossPool), reported
	// beside the within-benchmark attacker (blog 001, tables 14-15).
	AsideCrossPool = "cross-pool variant"
	// AsideDiagnostic: a further model of a Video-Oasis test, on a later
	// entry of its role (attack.DiagnosticOnly: blind-reader#2, ...).
	AsideDiagnostic = "further model of a Video-Oasis test"
)

// attackerKinds tells, by name, what the gate needs to know of the pool's
// attackers that the pool does not store: whether each is reported aside
// (and why) and whether it is a model reader.
type attackerKinds struct {
	byName map[string]attack.Attacker
}

// newAttackerKinds lists every attacker vidscreen can configure: every
// level, every role, the cross-pool variants. Later role entries
// (blind-reader#2) are told by their names (attack.SplitModel).
func newAttackerKinds() attackerKinds {
	cfg := attack.DefaultConfig()
	cfg.Levels = harness.Levels()
	cfg.CrossPool = true
	cfg.Roles = []string{attack.RoleLMReader, attack.RoleVLMReader, attack.RoleImageText, attack.RoleTextEmbed,
		attack.RoleCaptioner, attack.RoleASR, attack.RoleScreenReader}
	k := attackerKinds{byName: map[string]attack.Attacker{}}
	for _, a := range attack.Attackers(cfg) {
		k.byName[a.Name()] = a
	}
	return k
}

// aside returns why the attacker name is reported beside the pyramid, or ""
// when it is one of the pyramid's attackers.
func (k attackerKinds) aside(name string) string {
	if _, model := attack.SplitModel(name); model > 0 {
		return AsideDiagnostic
	}
	if strings.HasSuffix(name, attack.CrossPoolSuffix) {
		return AsideCrossPool
	}
	a, ok := k.byName[name]
	switch {
	case !ok:
		return ""
	case attack.ScreeningOnly(a):
		return AsideScreening
	case attack.CrossPool(a):
		return AsideCrossPool
	case attack.DiagnosticOnly(a):
		return AsideDiagnostic
	}
	return ""
}

// reader reports whether name is a model reader (its base name ends in
// "-reader", screening's rule): Video-Index 5.1 and 5.2 let a model reader
// remove whatever it solves, the solve rule's margin > log 2 being its
// guard, while a learner or matcher removes only where it is significantly
// above chance.
func (attackerKinds) reader(name string) bool {
	base, _ := attack.SplitModel(name)
	return strings.HasSuffix(base, "-reader")
}

// readerDrops reports whether r's verdicts drop what they solve without a
// significance test: a model reader that is no further model of a
// Video-Oasis test.
func readerDrops(r *AttackerResidual) bool {
	return attackerKinds{}.reader(r.Name) && r.Aside != AsideDiagnostic
}
