package selection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/harness/selection"
)

// A Go program releases a benchmark without the command line: it audits
// 40 items of the embedded demo (run.Open), screens the run as vidscreen
// screen does (harness/screen), then selects from it with a Spec, the flags
// of vidscreen select as data. The Spec, stored as JSON and read back,
// releases the same bytes under the same name.
func ExampleSelect() {
	dir, err := os.MkdirTemp("", "select-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	audit := run.DefaultSpec()
	audit.Levels, audit.Benchmarks, audit.Limit, audit.Quiet = []string{"option"}, []string{"STAR"}, 40, true
	audit.Out = filepath.Join(dir, "run")
	job, err := run.Open(ctx, audit, run.Env{})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = job.Run(ctx)
	job.Close()
	if err != nil {
		fmt.Println(err)
		return
	}

	in, err := screen.Open(audit.Out)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := screen.Compute(in, screen.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Write(filepath.Join(audit.Out, "screen")); err != nil {
		fmt.Println(err)
		return
	}

	spec := selection.DefaultSpec()
	spec.Run, spec.Out, spec.Budget = audit.Out, filepath.Join(dir, "release"), 12
	sum, err := selection.Select(ctx, spec, run.Env{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("released %d items of a pool of %d; red-team rounds: %d\n", sum.Items, sum.Pool, len(sum.Rounds))

	b, err := json.Marshal(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	var again selection.Spec
	if err := json.Unmarshal(b, &again); err != nil {
		fmt.Println(err)
		return
	}
	again.Out = filepath.Join(dir, "again")
	sum2, err := selection.Select(ctx, again, run.Env{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("the spec read back from JSON gives the same release: %v\n", sum2.Release == sum.Release)
	// Output:
	// released 12 items of a pool of 40; red-team rounds: 1
	// the spec read back from JSON gives the same release: true
}
