package run

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestYesNoChoiceIsPartOfTheConfiguration: a run that set VideoHallucer's
// yes/no items aside is not resumed (nor extended) with --keep-yesno, nor
// with --no-dedup: config.json's yes_no and duplicates_before_audit
// differ, and the refusal names them.
func TestYesNoChoiceIsPartOfTheConfiguration(t *testing.T) {
	t.Parallel()
	items := realItems(t, 10)
	out := filepath.Join(t.TempDir(), "run")
	levels := []harness.Level{harness.LevelOption}
	res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 1, Levels: levels})
	if res.Items != 30 || res.Sampled != 40 {
		t.Fatalf("audited %d of %d items, want 30 of 40", res.Items, res.Sampled)
	}
	for _, tc := range []struct {
		opt   Options
		field string
	}{
		{Options{KeepYesNo: true}, "yes_no"},
		{Options{NoDedup: true}, "duplicates_before_audit"},
	} {
		opt := tc.opt
		opt.Items, opt.Out, opt.Seed, opt.Levels = []string{items}, out, 1, levels
		_, err := Audit(context.Background(), opt)
		var cm *rundir.ConfigMismatchError
		if !errors.As(err, &cm) || !slices.Contains(cm.Fields, tc.field) {
			t.Errorf("resume with %+v: %v; want a mismatch naming %s", tc.opt, err, tc.field)
		}
	}
}

// TestOnlyYesNoItemsIsBadInput: an audit of nothing but bare yes/no items
// stops before it writes anything, with a *harness.ParseError (status 2)
// that says to use KeepYesNo.
func TestOnlyYesNoItemsIsBadInput(t *testing.T) {
	t.Parallel()
	items := onlyBenchmark(t, realItems(t, 10), "VideoHallucer")
	out := filepath.Join(t.TempDir(), "run")
	_, err := Audit(context.Background(), Options{Items: []string{items}, Out: out, Seed: 1, Levels: []harness.Level{harness.LevelOption}})
	var pe *harness.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrOnlyYesNo) || !errors.Is(err, harness.ErrNoItems) {
		t.Fatalf("err %v, want a ParseError wrapping ErrOnlyYesNo", err)
	}
	res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 1, Levels: []harness.Level{harness.LevelOption}, KeepYesNo: true})
	if res.Items != 10 || len(res.Cards) != 1 || res.Cards[0].Chance != 0.5 || res.Cards[0].YesNoOnly {
		t.Errorf("with KeepYesNo: %d items, cards %+v", res.Items, res.Cards)
	}
}
