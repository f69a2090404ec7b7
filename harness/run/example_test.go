package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/run"
)

// An audit of the embedded default at the option level, started twice on
// the same directory: the second run finds every unit stored.
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
	// run 1: 4049 items, 4 cards, 0 of 10 units stored before
	// run 2: 4049 items, 4 cards, 10 of 10 units stored before
}
