package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/kernels/npy"
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
		long: `Examples:

	vidscreen screen runs/nextqa
	vidscreen screen runs/nextqa --every-attacker --out runs/nextqa/screen-all

Screen reads the run directory RUN of a finished audit (items.parquet, cards.json,
config.json, the embedding files question.npy, text.npy, centre_frame.npy and mean_frame.npy,
and the permutation audit's choices in RUN/cache) and runs the Video-Index funnel (5.1) on
every item. It writes, in DIR (RUN/screen by default):

  screen.parquet     one row per item, in the run's order: provenance (id, benchmark,
                     video, video_id, duration, task, group, question, options, answer),
                     the near-duplicate cluster of the cards, data-quality flags, the
                     video's failure, per attacker its verdict (scored, abstained, choice,
                     correct, margin, orders judged and correct, solved), every screening
                     attacker that solves it, its largest margin, removed_by (the one
                     funnel step that removed it), duplicate_of, pending, kept, the
                     Video-Oasis consensus and ambiguity flags, and its row in the .npy
                     files
  question.npy, centre_frame.npy, mean_frame.npy
                     the question, middle-frame and mean-frame embeddings, one row per
                     item (the frame files only when a video level ran)
  ambiguity.parquet  the items with an ambiguity flag, for review
  screen.json, screen.md, screen.html
                     per benchmark the funnel (entering, removed, pending per step), the
                     shortcut ratios at consensus c = 1, 2, 3 with the ratio chance alone
                     gives, per benchmark and per group, each test's total and unique
                     counts, and (HTML) the items to review

The funnel's steps, each on what the earlier steps left (one reason per removed item):
duplicate (same benchmark, same video by content, question+options cosine > 0.90; the
smallest id stays), option_format (a meta option, a repeated option, an empty gold option,
or a flag --drop-quality names: empty_option, repeated_option, letter_prefix, meta_option),
the screening attackers in pyramid order (--attackers; by default options-reader,
blind-reader, centre-frame-reader, full-video-reader, shuffled-frames-reader, those the
run has; a run audited with a screen_reader role screens its shuffled step with
shuffled-frames-screen-reader instead), and cross_duplicate (other benchmarks, same
video, cosine >= 0.90; the earliest benchmark of the run stays). An item whose video
failed before a step that reads it is pending: neither kept nor removed.

An attacker solves an item when it answers it (Video-Index 5.1): a model reader (its name
ends in -reader, or --readers names it) when its top option is the gold one and log
p(gold) - mean log p(others) > log 2, the options-only and blind readers on at least
three of four seeded option orders (the permutation audit's first four); any other
attacker when it answers correctly. A seeded guess never solves. A learner or embedding
matcher screens only when --attackers names it and only on a benchmark whose card finds
it significantly above chance (--every-attacker drops that condition).

Video-Oasis (3.2): the six tests (blind, audio transcript, caption summary, centre frame,
frame shuffling, bag-of-frames) are run by diagnostic models (--diagnostics; by default
every attacker of the run that is one; learners never are); an item is a shortcut of a
test at c when at least c of its models answer it. Ambiguity flags: consistency (the
models of a test disagree), redundancy (a --window attacker solves it: one arbitrary
stretch of the video), sensitivity (a --shuffled attacker solves it: frames out of order).

It prints a JSON summary. The outputs are a pure function of the run and the flags.
Bad input (exit 2): RUN not a finished audit, a file of it missing or damaged (a
truncated .npy), an attacker name the run does not have, a diagnostic name that is no
test's model, an unknown quality flag.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the screen to `DIR` (default RUN/screen)")
			attackers := fs.String("attackers", "", "comma-separated `NAMES` of the screening attackers, the funnel's attack steps (default options-reader, blind-reader, centre-frame-reader, full-video-reader, shuffled-frames-reader, or shuffled-frames-screen-reader where the run has it: those the run has)")
			every := fs.Bool("every-attacker", false, "let a screening learner or matcher remove items also on benchmarks where its card does not find it significantly above chance")
			diagnostics := fs.String("diagnostics", "", "comma-separated `NAMES` of the attackers counted as the consensus's diagnostic models (default every one the run has)")
			dropQuality := fs.String("drop-quality", "", "comma-separated data-quality `FLAGS` whose items the option-format step removes besides meta and repeated options and an empty gold option")
			readers := fs.String("readers", "", "comma-separated `NAMES` of further attackers judged as model readers (correct and margin > log 2)")
			window := fs.String("window", "contiguous-tenth-reader", "comma-separated `NAMES` of the attackers that read one stretch of the video (redundancy)")
			shuffled := fs.String("shuffled", "shuffled-frames-reader", "comma-separated `NAMES` of the attackers that read shuffled frames (sensitivity)")
			return func(ctx context.Context, args []string) error {
				// Flags may follow RUN too.
				if len(args) > 1 {
					if err := fs.Parse(args[1:]); err != nil {
						return &usageError{flagErrorText(fs, err)}
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
					// A damaged file of the run (a truncated .npy, a bad
					// items.parquet) is bad input, as a missing one is.
					var fe *npy.FormatError
					var pe *harness.ParseError
					if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, screen.ErrOldRun) || errors.Is(err, completion.ErrUnfinished) || errors.As(err, &fe) || errors.As(err, &pe) {
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
