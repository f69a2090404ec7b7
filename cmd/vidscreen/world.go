package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness/world"
)

func newWorldCommand() *command {
	return &command{
		name:  "world",
		short: "render a world of videos and items whose shortcuts are planted, to audit the auditor",
		usage: "--out DIR [--seed N] [--videos N] [--min-duration S] [--max-duration S] [--check]",
		long: `World renders small synthetic videos (background colour segments that change over
time, coloured squares, circles, triangles and stars that appear, move and disappear),
encodes them as H.264 MP4 through FFmpeg, and writes multiple-choice items about them in
families whose shortcut is known: an option artifact, a text leak, templated duplicates,
paired yes/no siblings, single-frame solvable, solvable from some frames but not one,
solvable from any window, order-dependent, and clean controls. Each family is its own
benchmark (world-FAMILY) in DIR/items.jsonl; DIR/truth.json gives each family and item
the lowest level of the attack pyramid expected to solve it, or null where none should.
Audit the world with --items DIR/items.jsonl --videos DIR; the audit-of-the-auditor table
compares the cards with truth.json (see docs/world.md).

The same flags give the same bytes. Writing into an existing world replaces its files.
With --check nothing is written: the exit status is 0 when DIR already holds the world
these flags describe (made by this version of vidscreen), 1 when it does not; make demo
uses it to render the world once. Progress (the videos rendered, with rate and ETA) goes to
stderr as audit's does: a line on a terminal, log lines in --log-format elsewhere.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the world to `DIR` (required)")
			seed := fs.Uint64("seed", 1, "seed of the scenes and items")
			videos := fs.Int("videos", 100, "number of videos, shared among the families (at least 9)")
			minDur := fs.Float64("min-duration", 4, "shortest video in seconds (some families need longer ones)")
			maxDur := fs.Float64("max-duration", 40, "longest video in seconds")
			check := fs.Bool("check", false, "write nothing; exit 0 if DIR already holds this world, 1 if not")
			logFormat := fs.String("log-format", "text", "write progress as log lines in `FORMAT` (text or json) when stderr is not a terminal")
			quiet := fs.Bool("quiet", false, "write no progress (a line per video rendered on a terminal, log lines elsewhere)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected argument %q", args[0])}
				}
				if *out == "" {
					return &usageError{"--out DIR is required"}
				}
				if *videos < len(world.Families()) {
					return &usageError{fmt.Sprintf("--videos %d: at least %d, one per family", *videos, len(world.Families()))}
				}
				if *minDur < 1 || *maxDur < *minDur {
					return &usageError{fmt.Sprintf("--min-duration %g, --max-duration %g: want 1 <= min <= max", *minDur, *maxDur)}
				}
				opt := world.Options{Seed: *seed, Videos: *videos, MinDuration: *minDur, MaxDuration: *maxDur}
				if *check {
					ok, err := world.Matches(*out, opt)
					if err != nil {
						return err
					}
					if !ok {
						return fmt.Errorf("%s does not hold the world of these flags (or was made by another version); run without --check to write it", *out)
					}
					fmt.Fprintf(env.stdout, "world: %s is up to date\n", *out)
					return nil
				}
				// libx264 prints a summary of every file at FFmpeg's default level.
				if err := decode.SetLogLevel("error"); err != nil {
					return err
				}
				rep, err := newReporter(env.stderr, *logFormat, *quiet)
				if err != nil {
					return err
				}
				opt.Progress = rep
				start := time.Now()
				w, err := world.Generate(ctx, *out, opt)
				rep.Close()
				if err != nil {
					return err
				}
				tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "family\tvideos\titems\texpected level\tplanted")
				for _, f := range w.Truth.Families {
					exp := "none"
					if f.Expected != nil {
						exp = f.Expected.String()
					}
					fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", f.Name, f.Videos, f.Items, exp, f.Shortcut)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "\nworld: %d videos, %d items in %s (%.1f s); %s\n", w.Truth.Videos, len(w.Items), *out,
					time.Since(start).Seconds(), strings.Join([]string{world.ItemsFile, world.TruthFile, world.VideosDir + "/"}, ", "))
				return nil
			}
		},
	}
}
