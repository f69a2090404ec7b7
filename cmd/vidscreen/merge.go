package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness/completion"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

func newMergeCommand() *command {
	return &command{
		name:  "merge",
		short: "combine the shard directories of a split audit and write its cards",
		usage: "RUN1 RUN2 ... --out DIR [flags]",
		long: `Merge combines the run directories of the shards 0..N-1 of one audit (each written by
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
			device := fs.String("device", "cpu", "run the text models the merge still needs on `DEVICE`: cpu, cuda or cuda:N")
			logFormat := fs.String("log-format", "text", "write progress as log lines in `FORMAT` (text or json) when stderr is not a terminal")
			quiet := fs.Bool("quiet", false, "write no progress (bars or log lines); errors and the summary still appear")
			return func(ctx context.Context, rest []string) error {
				// Flags may follow the directories ("merge RUN1 RUN2 --out DIR").
				var args []string
				for len(rest) > 0 {
					args = append(args, rest[0])
					if err := fs.Parse(rest[1:]); err != nil {
						return &usageError{err.Error()}
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
				var inv []string
				for k, dir := range args {
					s, err := runs.ReadShard(dir)
					if err != nil {
						return auditError(err)
					}
					// A shard killed before it finished has no completion
					// record; its shard.json may be another run's.
					if _, err := completion.Check(dir); err != nil {
						return fmt.Errorf("%w: shard %v", errBadInput, err)
					}
					if k == 0 {
						inv = s.Invocation
					} else if !slices.Equal(s.Invocation, inv) {
						return auditError(&runs.ShardError{Dir: dir, Msg: fmt.Sprintf("made by other audit flags than %s: %q against %q", args[0], s.Invocation, inv)})
					}
				}
				shards := make([]string, len(args))
				for k, dir := range args {
					shards[k] = filepath.Clean(dir)
				}
				afs := flag.NewFlagSet("vidscreen audit", flag.ContinueOnError)
				afs.SetOutput(io.Discard)
				run := auditCommand(shards).flags(afs, env)
				full := append(slices.Clone(inv), "--out", *out, "--workers", strconv.Itoa(*workers), "--device", *device, "--log-format", *logFormat)
				if *quiet {
					full = append(full, "--quiet")
				}
				if err := afs.Parse(full); err != nil {
					return auditError(&runs.ShardError{Dir: args[0], Msg: fmt.Sprintf("%s holds flags this vidscreen does not read (%v): merge with the vidscreen that made the shards", rundir.ShardFile, err)})
				}
				return run(ctx, afs.Args())
			}
		},
	}
}

// shardInvocation lists the flags of a shard's audit that merge runs again:
// every flag given, with the paths made absolute (merge may run in another
// directory) and the flags of one process left out (--shard, --out,
// --workers, --device, --precision, --offload-min-work, --log-format,
// --quiet), which change no output.
func shardInvocation(fs *flag.FlagSet, items, preds []string) ([]string, error) {
	var out []string
	var err error
	abs := func(p string) string {
		a, e := filepath.Abs(p)
		if e != nil && err == nil {
			err = fmt.Errorf("--shard: absolute path of %s: %w", p, e)
		}
		return a
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "shard", "out", "workers", "device", "precision", "offload-min-work", "device-memory", "log-format", "quiet":
		case "items":
			for _, p := range items {
				out = append(out, "--items", abs(p))
			}
		case "predictions":
			for _, v := range preds {
				name, file, _ := strings.Cut(v, "=")
				out = append(out, "--predictions", name+"="+abs(file))
			}
		case "videos", "video-root", "models", "reference":
			out = append(out, "--"+f.Name, abs(f.Value.String()))
		default:
			out = append(out, "--"+f.Name+"="+f.Value.String())
		}
	})
	return out, err
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
