package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

func newVersionCommand() *command {
	return &command{
		name:  "version",
		short: "print the version and the commit vidscreen was built from",
		usage: "",
		long: `Examples:

	vidscreen version

Version prints vidscreen's version, the one that heads every cards.json, and the VCS
commit the binary was built from ("-dirty" when the tree had local changes, "unknown" when
the build recorded none). The commit goes to run.json, never to cards.json.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q", args)}
				}
				_, err := fmt.Fprintf(env.stdout, "vidscreen %s (commit %s)\n", harness.Version, harness.Commit())
				return err
			}
		},
	}
}
