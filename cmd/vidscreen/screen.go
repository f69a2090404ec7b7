package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// screenSummary is what screen prints: where it wrote and, per benchmark,
// how many items it keeps.
type screenSummary struct {
	Out        string          `json:"out"`
	Items      int             `json:"items"`
	Kept       int             `json:"kept"`
	Ambiguous  int             `json:"ambiguous"`
	Benchmarks []screenBenches `json:"benchmarks"`
}

type screenBenches struct {
	Benchmark string    `json:"benchmark"`
	Items     int       `json:"items"`
	Kept      int       `json:"kept"`
	Shortcut  []float64 `json:"shortcut_ratio"` // at c = 1, 2, 3
}

func newScreenCommand() *command {
	return &command{
		name:  "screen",
		short: "screen every item of a finished audit and count the Video-Oasis shortcuts",
		usage: "RUN [--out DIR] [--attackers A,B] [--every-attacker] [--diagnostics A,B] [--drop-quality FLAG,...]",
		long: `Screen reads the run directory RUN of a finished audit (items.parquet, cards.json and
the embedding files question.npy, centre_frame.npy and mean_frame.npy) and decides, item
by item, what is fit to build a benchmark from (Video-Index 5.1). It writes, in DIR
(RUN/screen by default):

  screen.parquet     one row per item, in the run's order: provenance (id, benchmark,
                     video, duration, task, group, question, options, answer), the
                     near-duplicate cluster and whether the item duplicates one kept from
                     another benchmark, data-quality flags, the video's failure, per
                     attacker its verdict (scored, abstained, choice, correct, margin,
                     solved), the attackers that solve it, its largest margin, the
                     Video-Oasis consensus and ambiguity flags, kept or the reasons it
                     goes, and its row in the .npy files
  question.npy, centre_frame.npy, mean_frame.npy
                     the question, middle-frame and mean-frame embeddings, one row per
                     item (the frame files only when a video level ran)
  ambiguity.parquet  the items with an ambiguity flag, for review
  screen.json, screen.md, screen.html
                     per benchmark what screening removes and why, the shortcut ratios
                     at consensus c = 1, 2, 3 per benchmark and per group, each test's
                     total and unique counts, and (HTML) the items to review

An attacker solves an item where it was scored: a model reader (its name ends in
-reader, or --readers names it) when its margin log p(gold) - mean log p(others) > log 2;
any other when it answered correctly without a seeded guess. An item is removed when a
screening attacker (--attackers; all by default) solves it on a benchmark whose card finds
that attacker significantly above chance (elsewhere an attacker solves items by luck;
--every-attacker drops that condition), when its near-duplicate
cluster spans benchmarks and the item is not of the benchmark that keeps it (the one of
the first member no attacker solves), when its video failed, or when it carries a flag
--drop-quality names (empty_option, repeated_option, letter_prefix, meta_option).

Video-Oasis: the diagnostic tests (--diagnostics; all attackers by default: none sees the
whole video in order) make an item a shortcut at c when at least c of them solve it.
Ambiguity flags: consistency (the diagnostic tests' answers have no majority),
redundancy (a --window attacker solves it: one arbitrary stretch of the video),
sensitivity (a --shuffled attacker solves it: frames out of order).

It prints a JSON summary. The outputs are a pure function of the run and the flags.
Bad input (exit 2): RUN not a finished audit, an attacker name the run does not have,
an unknown quality flag.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the screen to `DIR` (default RUN/screen)")
			attackers := fs.String("attackers", "", "comma-separated `NAMES` of the attackers whose solved items are removed (default all)")
			every := fs.Bool("every-attacker", false, "let a screening attacker remove items also on benchmarks where its card does not find it significantly above chance")
			diagnostics := fs.String("diagnostics", "", "comma-separated `NAMES` of the consensus's diagnostic tests (default all attackers)")
			dropQuality := fs.String("drop-quality", "", "comma-separated data-quality `FLAGS` whose items are removed")
			readers := fs.String("readers", "", "comma-separated `NAMES` of further attackers judged by the margin > log 2 rule")
			window := fs.String("window", "contiguous-tenth-reader", "comma-separated `NAMES` of the attackers that read one stretch of the video (redundancy)")
			shuffled := fs.String("shuffled", "shuffled-frames-reader", "comma-separated `NAMES` of the attackers that read shuffled frames (sensitivity)")
			return func(ctx context.Context, args []string) error {
				// Flags may follow RUN too.
				if len(args) > 1 {
					if err := fs.Parse(args[1:]); err != nil {
						return &usageError{err.Error()}
					}
					args = append(args[:1], fs.Args()...)
				}
				if len(args) != 1 {
					return &usageError{"name one run directory: vidscreen screen RUN"}
				}
				run := args[0]
				dir := *out
				if dir == "" {
					dir = filepath.Join(run, "screen")
				}
				in, err := screen.Open(run)
				if err != nil {
					if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, screen.ErrOldRun) || errors.Is(err, completion.ErrUnfinished) {
						return fmt.Errorf("%w: %v", errBadInput, err)
					}
					return err
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				s, err := screen.Compute(in, screen.Options{
					Attackers: splitList(*attackers), EveryAttacker: *every, Diagnostics: splitList(*diagnostics), DropQuality: splitList(*dropQuality),
					Readers: splitList(*readers), Window: splitList(*window), Shuffled: splitList(*shuffled),
				})
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				if err := s.Write(dir); err != nil {
					return err
				}
				sum := screenSummary{Out: dir, Ambiguous: s.Consensus.Ambiguity.Any}
				for k, b := range s.Benchmarks {
					sum.Items += b.Items
					sum.Kept += b.Kept
					sum.Benchmarks = append(sum.Benchmarks, screenBenches{b.Benchmark, b.Items, b.Kept, s.Consensus.Benchmarks[k].Ratio})
				}
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
		},
	}
}
