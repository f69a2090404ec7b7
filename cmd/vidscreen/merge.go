package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

func newMergeCommand() *command {
	return &command{
		name:  "merge",
		short: "combine the shard directories of a split audit and write its cards",
		usage: "RUN1 RUN2 ... --out DIR [flags]",
		long: `Examples:

	vidscreen merge run/shard-0 run/shard-1 run/shard-2 --out run/merged

Merge combines the run directories of the shards 0..N-1 of one audit (each written by
"vidscreen audit ... --shard i/N") into the whole audit in DIR: it checks that they are
the N shards of the same audit (the same items, models, levels and seed: each shard's
config.json, less its shard, must match), takes every shard's cached features into
DIR/cache (hard links where the file system allows), and runs the audit the shards'
shard.json records, with the stages that look across items: text embeddings, the
attackers (whose frame and order levels read the cached features: nothing is decoded
again), near-duplicates, effective size and cards. DIR then holds exactly the files of
an unsharded audit of the same flags, and its config.json, cards.json, cards.md,
index.html, items.parquet and duplicates.parquet are byte-identical to that audit's.

The items, reference, predictions, video root and models are read again from the
absolute paths the shards recorded: merge runs where they are visible (a shared file
system). A video that failed in its shard is tried again and fails the same way. DIR
resumes after an interruption like any audit. Shards of different audits, a shard given
twice or one missing, or a shard that has not finished are refused with exit status 2.
Recipes that run the shards as a Slurm array job or a Kubernetes Indexed Job, and the
merge after them: deploy/README.md; the design: docs/shards.md.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the merged run to directory `DIR` (created if missing; required)")
			workers := fs.Int("workers", 0, "run `N` attacker units at once (0: one per CPU); outputs do not depend on it")
			df := gpuflag.Add(fs, gpuflag.Device)
			logFormat := fs.String("log-format", "text", "write progress as log lines in `FORMAT` (text or json) when stderr is not a terminal")
			quiet := fs.Bool("quiet", false, "write no progress (bars or log lines); errors and the summary still appear")
			return func(ctx context.Context, rest []string) error {
				// Flags may follow the directories ("merge RUN1 RUN2 --out DIR").
				var args []string
				for len(rest) > 0 {
					args = append(args, rest[0])
					if err := fs.Parse(rest[1:]); err != nil {
						return &usageError{flagErrorText(fs, err)}
					}
					rest = fs.Args()
				}
				if len(args) == 0 {
					return &usageError{"name the shard run directories to merge"}
				}
				if *out == "" {
					return &usageError{"--out DIR is required"}
				}
				if *workers < 0 {
					return &usageError{"--workers must be 0 or more"}
				}
				spec, err := runs.MergeSpec(args)
				if err != nil {
					return auditError(err)
				}
				// The fields of this process: the shards stored none.
				spec.Out, spec.Workers, spec.Device, spec.LogFormat, spec.Quiet = *out, *workers, df.Device, *logFormat, *quiet
				return runAuditSpec(ctx, spec, env)
			}
		},
	}
}

// printShardSummary says what a shard did and how to merge it.
func printShardSummary(w io.Writer, res *runs.Result) error {
	s := res.Shard
	failed := 0
	for _, v := range s.Videos {
		if v.Failure != "" {
			failed++
		}
	}
	_, err := fmt.Fprintf(w, "shard %d/%d: %d of %d items, %d videos (%d failed); features in %s\nmerge the %d shard directories with: vidscreen merge DIR0 ... DIR%d --out DIR\n",
		s.Shard, s.Shards, s.Items, s.Of, len(s.Videos), failed, filepath.Join(res.Dir, rundir.CacheDir), s.Shards, s.Shards-1)
	return err
}
