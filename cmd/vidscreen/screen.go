package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"path/filepath"
	"slices"
	"strings"

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
		usage: "RUN [--out DIR] [--attackers A,B] [--every-attacker] [--diagnostics A,B] [--drop-quality FLAG,...] [--consensus-rule correct|solve] [--consistency A,B] [--restore FILE]",
		long: `Examples:

	vidscreen screen runs/nextqa
	vidscreen screen runs/nextqa --every-attacker --out runs/nextqa/screen-all
	vidscreen screen runs/nextqa --restore runs/nextqa/screen/sensitivity.jsonl

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
  sensitivity.jsonl  the sensitivity review queue: one JSON object per item the
                     shuffled frames answer (benchmark, id, video, question, options,
                     answer, answer_letter, reason, decision, note), for a person to set
                     decision to "restore" or "keep" and give back with --restore
  screen.json, screen.md, screen.html
                     per benchmark the funnel (entering, removed, pending per step), the
                     shortcut ratios at consensus c = 1, 2, 3 with the ratio chance alone
                     gives, per benchmark and per group, each test's total and unique
                     counts, and (HTML) the items to review

The funnel's steps, each on what the earlier steps left (one reason per removed item):
duplicate (same-video duplicates: same benchmark, same video by content, question+options
cosine > 0.90; the smallest id stays; the cards' near-duplicates, any video, are another
rule: docs/audit.md's glossary), option_format (a meta option, a repeated option, an empty
gold option, or a flag --drop-quality names: empty_option, repeated_option, letter_prefix,
meta_option), the screening attackers in pyramid order (--attackers; by default
options-reader, blind-reader, centre-frame-reader, full-video-reader,
shuffled-frames-reader, those the run has; a run audited with a screen_reader role screens
its shuffled step with shuffled-frames-screen-reader instead), and cross_duplicate
(same-video duplicates across benchmarks, cosine >= 0.90; the earliest benchmark of the
run stays). An item whose video
failed before a step that reads it is pending: neither kept nor removed.

An attacker solves an item when it answers it (Video-Index 5.1): a model reader (its name
ends in -reader, or --readers names it) when its top option is the gold one and log
p(gold) - mean log p(others) > log 2, the options-only and blind readers on at least
three of four seeded option orders (the permutation audit's first four); any other
attacker when it answers correctly. A seeded guess never solves. A learner or embedding
matcher screens only when --attackers names it and only on a benchmark whose card finds
it significantly above chance (--every-attacker drops that condition).

Video-Oasis (3.2; the authors' aggregate_results.py): the six tests (blind, audio
transcript, caption summary, centre frame, frame shuffling, bag-of-frames) are run by
diagnostic models (--diagnostics; by default every attacker of the run that is one;
learners never are); an item is a shortcut of a test at c when every one of the test's
models answered it and at least c of them answered it correctly (--consensus-rule
correct, the default; --consensus-rule solve counts the Video-Index solve rule instead).
Ambiguity flags (3.1, criteria 3): consistency (the --consistency models, by default the
full-video readers of every vlm_reader entry, all answered and chose min(options,
models) different options: the authors' maximal disagreement; it needs two), redundancy
(a --window attacker answers it correctly: by default eight-chunk-reader, answered on
every one of eight contiguous chunks; contiguous-tenth-reader is the project's one-tenth
variant), sensitivity (a --shuffled attacker answers it correctly). A person reviews
sensitivity.jsonl and gives it back with --restore FILE: the items marked "restore" are
no shortcut of the frame-shuffling test (the authors' --sensitivity-restore).

It prints a JSON summary. The outputs are a pure function of the run and the flags.
Bad input (exit 2): RUN not a finished audit, a file of it missing or damaged (a
truncated .npy), an attacker name the run does not have, a diagnostic name that is no
test's model, an unknown quality flag or consensus rule, a --restore file with a bad line
(named by line and field) or an item the run does not have.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the screen to `DIR` (default RUN/screen)")
			attackers := fs.String("attackers", "", "comma-separated `NAMES` of the screening attackers, the funnel's attack steps (default options-reader, blind-reader, centre-frame-reader, full-video-reader, shuffled-frames-reader, or shuffled-frames-screen-reader where the run has it: those the run has)")
			every := fs.Bool("every-attacker", false, "let a screening learner or matcher remove items also on benchmarks where its card does not find it significantly above chance")
			diagnostics := fs.String("diagnostics", "", "comma-separated `NAMES` of the attackers counted as the consensus's diagnostic models (default every one the run has)")
			dropQuality := fs.String("drop-quality", "", "comma-separated data-quality `FLAGS` whose items the option-format step removes besides meta and repeated options and an empty gold option")
			readers := fs.String("readers", "", "comma-separated `NAMES` of further attackers judged as model readers (correct and margin > log 2)")
			window := fs.String("window", screen.ChunkReader, "comma-separated `NAMES` of the attackers that read parts of the video (redundancy; contiguous-tenth-reader: the project's one-tenth variant)")
			shuffled := fs.String("shuffled", "shuffled-frames-reader", "comma-separated `NAMES` of the attackers that read shuffled frames (sensitivity)")
			rule := fs.String("consensus-rule", screen.RuleCorrect, "when a diagnostic model solves an item for the consensus: `RULE` correct (its answer is the gold, as Video-Oasis) or solve (the Video-Index solve rule, three of four orders and a margin)")
			consistency := fs.String("consistency", "", "comma-separated `NAMES` of the models the consistency check compares (default the full-video-reader of every vlm_reader entry)")
			restore := fs.String("restore", "", "read a person's sensitivity review from `FILE` (sensitivity.jsonl with decisions): the items marked restore are no shortcut of the frame-shuffling test")
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
				var restored []screen.ItemRef
				if *restore != "" {
					if restored, err = screen.ReadRestore(*restore); err != nil {
						return fmt.Errorf("%w: restore: %v", errBadInput, err)
					}
				}
				s, err := screen.Compute(in, screen.Options{
					Attackers: splitList(*attackers), EveryAttacker: *every, Diagnostics: splitList(*diagnostics), DropQuality: splitList(*dropQuality),
					Readers: splitList(*readers), Window: splitList(*window), Shuffled: splitList(*shuffled),
					ConsensusRule: *rule, Consistency: splitList(*consistency), Restored: restored,
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
				if *attackers == "" {
					sayAbsentScreeners(env.stderr, s)
				}
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
		},
	}
}

// absentScreeners lists the default screeners (model readers) the run does
// not have: their funnel steps were skipped.
func absentScreeners(s *screen.Screen) []string {
	var out []string
	for _, n := range screen.DefaultScreeners {
		if slices.Contains(s.Options.Attackers, n) || (n == "shuffled-frames-reader" && slices.Contains(s.Options.Attackers, screen.ShuffledScreenReader)) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// sayAbsentScreeners says on the terminal, in one line, that the default
// screeners were absent and what to add (issue 33.1.1): a text-level audit
// without models keeps nearly every item with shortcut_ratio 0 while its
// card shows learners far above chance, and screen.md alone said why.
func sayAbsentScreeners(w io.Writer, s *screen.Screen) {
	missing := absentScreeners(s)
	if len(missing) == 0 {
		return
	}
	var learners []string
	for _, a := range s.Attackers {
		if !strings.HasSuffix(a.Name, "-reader") && !strings.Contains(a.Name, "-reader#") {
			learners = append(learners, a.Name)
		}
	}
	fix := "audit with --models DIR (its lm_reader runs options-reader and blind-reader; with --videos ROOT its vlm_reader the frame readers)"
	if len(learners) > 0 {
		fix += fmt.Sprintf(", or screen with the run's learners: --attackers %s (each where its card is significant; --every-attacker everywhere)", strings.Join(learners, ","))
	}
	fmt.Fprintf(w, "vidscreen screen: the default screeners %s are absent from the run (their funnel steps removed nothing, so shortcut_ratio counts none of them): %s\n", strings.Join(missing, ", "), fix)
}
