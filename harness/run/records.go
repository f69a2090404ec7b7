package run

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// recordBatch is how many records a unit appends at once: one write and
// one fsync per batch, and no more than a batch encoded in memory.
const recordBatch = 1 << 13

// A unit is one attacker on one variant: the work of one Attack call, whose
// predictions (one per item) are stored as they are produced.
type unit struct {
	attacker int // index into audit.attackers
	variant  int
	ans      *answers // by item index
	stored   int
	// frames is true when the attacker reads the video: its answers hold
	// and store what they read of it (rundir.Record.Input), and the answer of an
	// item whose video failed is not stored (a failure is not a result:
	// the next run tries the video again).
	frames bool
}

// complete says whether u has a stored prediction for every item of items.
func (u *unit) complete(items []int32) bool {
	for _, i := range items {
		if !u.ans.has(i) {
			return false
		}
	}
	return true
}

// loadRecords is the records stage: it makes a.units, one per attacker and
// variant of the run, opens the record file as a.store and files every
// stored prediction under its unit. The torn tail of the file is cut
// (res.DroppedBytes); a record that matches no unit and item of this run's
// configuration is an error.
func (a *audit) loadRecords() error {
	t0 := time.Now()
	for i, at := range a.attackers {
		for v := 0; v < attack.Variants(at, a.acfg); v++ {
			u := &unit{attacker: i, variant: v, ans: newAnswers(len(a.items)), frames: attack.FrameNeeds(at) != 0}
			if u.frames {
				u.ans.input = make([]uint64, len(a.items))
			}
			a.units = append(a.units, u)
		}
	}
	index := make(map[string]int, len(a.items))
	for i, it := range a.items {
		index[it.Key()] = i
	}
	type uk struct {
		name    string
		variant int
	}
	byKey := map[uk]*unit{}
	for _, u := range a.units {
		byKey[uk{a.attackers[u.attacker].Name(), u.variant}] = u
	}
	s, dropped, err := rundir.OpenStore(filepath.Join(a.opt.Out, rundir.RecordsFile), func(r rundir.Record) error {
		u, ok := byKey[uk{r.Attacker, r.Variant}]
		i, ok2 := index[r.Key]
		if !ok || !ok2 {
			return fmt.Errorf("record of %s variant %d for item %q matches nothing in this run's configuration", r.Attacker, r.Variant, r.Key)
		}
		if !u.ans.has(int32(i)) {
			u.stored++
		}
		u.ans.put(int32(i), a.items[i], r.Pred)
		if u.ans.input != nil {
			u.ans.input[i] = inputID(r.Input)
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.store = s
	a.res.DroppedBytes = dropped
	a.stage("records", t0)
	return nil
}
