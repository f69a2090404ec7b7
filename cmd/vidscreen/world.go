package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/world"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

func newWorldCommand() *command {
	return &command{
		name:  "world",
		short: "render a world of videos and items whose shortcuts are planted, to audit the auditor",
		usage: "--out DIR [--seed N] [--videos N] [--min-duration S] [--max-duration S] [--check]",
		long: `Examples:

	vidscreen world --out out/world --seed 1 --videos 100
	vidscreen world --out out/world --check

World renders small synthetic videos (background colour segments that change over
time, coloured squares, circles, triangles and stars that appear, move and disappear),
encodes them as H.264 MP4 through FFmpeg, and writes multiple-choice items about them in
families whose shortcut is known: an option artifact, a text leak, templated duplicates,
paired yes/no siblings, single-frame solvable, solvable from some frames but not one,
solvable from any window, order-dependent, clean controls, and an audio family whose
soundtrack names the answer (its videos, a tenth as many, at least four, come on top).
Each family is its own benchmark (world-FAMILY) in DIR/items.jsonl; DIR/truth.json gives
each family and item the lowest level of the attack pyramid expected to solve it, or null
where none should.
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
				if *videos < world.MinVideos() {
					return &usageError{fmt.Sprintf("--videos %d: at least %d, one per family", *videos, world.MinVideos())}
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
				rep, err := progress.ForWriter(env.stderr, *logFormat, *quiet)
				if err != nil {
					return &usageError{"--log-format: " + err.Error()}
				}
				opt.Progress = rep
				start := time.Now()
				w, err := world.Generate(ctx, *out, opt)
				rep.Close()
				if err != nil {
					return err
				}
				if err := writeFamilies(env.stdout, w.Truth.Families, outputWidth(env.stdout)); err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "\nworld: %d videos, %d items in %s (%.1f s); %s\n", w.Truth.Videos, len(w.Items), *out,
					time.Since(start).Seconds(), strings.Join([]string{world.ItemsFile, world.TruthFile, world.VideosDir + "/"}, ", "))
				return sayTooFew(env.stderr, w, opt)
			}
		},
	}
}

// writeFamilies prints the world's families as a table that fits width
// columns: the description of each planted shortcut, the last column, is
// cut to fit (truth.json and docs/world.md hold it whole).
func writeFamilies(w io.Writer, fams []truth.FamilyTruth, width int) error {
	rows := [][]string{{"family", "videos", "items", "expected level", "planted"}}
	for _, f := range fams {
		exp := "none"
		if f.Expected != nil {
			exp = f.Expected.String()
		}
		rows = append(rows, []string{f.Name, fmt.Sprint(f.Videos), fmt.Sprint(f.Items), exp, f.Shortcut})
	}
	cols := make([]int, 4)
	for _, r := range rows {
		for k := range cols {
			cols[k] = max(cols[k], len([]rune(r[k]))+2)
		}
	}
	prefix := 0
	for _, c := range cols {
		prefix += c
	}
	cut := false
	var b strings.Builder
	for _, r := range rows {
		for k, c := range cols {
			fmt.Fprintf(&b, "%-*s", c, r[k])
		}
		planted := []rune(r[4])
		if room := max(width-1-prefix, 8); len(planted) > room {
			planted, cut = append(planted[:room-1], '…'), true
		}
		b.WriteString(string(planted) + "\n")
	}
	if cut {
		b.WriteString("(each shortcut in full: truth.json, docs/world.md)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// outputWidth is the width of w when it is a terminal, else 100 columns.
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 100
}

// sayTooFew warns when some family of w has too few items for its planted
// shortcut to be testable, naming the fewest --videos that gives every
// family enough (issue 33.1.9): an audit of a 12-video world reported
// "recall 0/7" without saying that 2 to 12 items per family cannot be
// significant. The world is still written: a small world is a fine smoke
// test of the pipeline, not of the auditor's recall.
func sayTooFew(w io.Writer, wd *world.World, opt world.Options) error {
	small := wd.TooFew()
	if len(small) == 0 {
		return nil
	}
	parts := make([]string, len(small))
	for i, s := range small {
		parts[i] = fmt.Sprintf("%s %d < %d", s.Family, s.Items, s.Need)
	}
	min, err := world.MinTestableVideos(opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "world: too few items to test %d families (%s): even an attacker right on every item is not significant (exact test, Holm over %d attackers at %g), so an audit can only miss them; --videos %d or more gives every family enough\n",
		len(small), strings.Join(parts, ", "), truth.HolmAttackers, metrics.Alpha, min)
	return nil
}
