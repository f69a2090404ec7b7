package run_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// An audit of the embedded default at the option level, started twice on
// the same directory: the second run finds every unit stored. VideoHallucer's
// 976 items are bare yes/no pairs, set aside before the audit (its card says
// so): 3,073 of the 4,049 items are audited.
func ExampleAudit() {
	dir, err := os.MkdirTemp("", "audit-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	opt := run.Options{FS: demo.FS(), Items: demo.Items(), Out: filepath.Join(dir, "run"),
		Levels: []harness.Level{harness.LevelOption}, Seed: 1, Workers: 2}
	for i := 0; i < 2; i++ {
		res, err := run.Audit(context.Background(), opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("run %d: %d items, %d cards, %d of %d units stored before\n", i+1, res.Items, len(res.Cards), res.UnitsStored, res.Units)
	}
	// Output:
	// run 1: 3073 items, 4 cards, 0 of 10 units stored before
	// run 2: 3073 items, 4 cards, 10 of 10 units stored before
}

// A Go program runs an audit without the command line: a Spec (the flags
// of vidscreen audit as data) opened into a Job and run. Split into two
// shards, each storing its Spec in shard.json, the audit is merged by
// MergeSpec into the cards an unsharded run writes.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "spec-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	audit := func(spec run.Spec) *run.Result {
		job, err := run.Open(context.Background(), spec, run.Env{})
		if err != nil {
			fmt.Println(err)
			return nil
		}
		defer job.Close()
		res, err := job.Run(context.Background())
		if err != nil {
			fmt.Println(err)
			return nil
		}
		return res
	}
	spec := run.DefaultSpec()
	spec.Levels, spec.Benchmarks, spec.Limit, spec.Quiet = []string{"option"}, []string{"STAR"}, 40, true
	spec.Out = filepath.Join(dir, "whole")
	whole := audit(spec)
	var shards []string
	for i := range 2 {
		s := spec
		s.Out, s.Shard = filepath.Join(dir, fmt.Sprintf("shard%d", i)), &run.Shard{Index: i, Count: 2}
		if res := audit(s); res != nil {
			fmt.Printf("shard %d/2: %d of %d items\n", i, res.Shard.Items, res.Shard.Of)
		}
		shards = append(shards, s.Out)
	}
	merged, err := run.MergeSpec(shards)
	if err != nil {
		fmt.Println(err)
		return
	}
	merged.Out, merged.Quiet = filepath.Join(dir, "merged"), true
	res := audit(merged)
	a, _ := os.ReadFile(filepath.Join(whole.Dir, rundir.CardsJSON))
	b, _ := os.ReadFile(filepath.Join(res.Dir, rundir.CardsJSON))
	fmt.Printf("merged: %d items, cards identical to the unsharded run: %v\n", res.Items, bytes.Equal(a, b))
	// Output:
	// shard 0/2: 16 of 40 items
	// shard 1/2: 24 of 40 items
	// merged: 40 items, cards identical to the unsharded run: true
}
