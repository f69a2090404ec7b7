package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/report"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

func newCardsCommand() *command {
	return &command{
		name:  "cards",
		short: "print a finished audit's cards as a paper table (LaTeX, CSV or Markdown)",
		usage: "[--format latex|csv|md] RUN",
		long: `Examples:

	vidscreen cards --format latex runs/a > table.tex
	vidscreen cards --format csv runs/a > cards.csv
	vidscreen cards runs/a

Cards reads the report cards of the finished audit in the run directory RUN (cards.json,
after checking the run's completion record) and prints them as one table: a row per
benchmark and level, with vidscreen's level name and Video-Index's beside it (eps_opt ...
eps_order, and what the level adds), eps in % and whether it is significant after Holm's
correction, the attacker that reached it and the papers' name for it (L0-L3 for the pool
attackers, as the blog's tables 14-15), whether the benchmark breaks there (delta 5%), and on
the pool row the ALC on the card's 0-1 scale and on the blog's 0-100 one. The figures are
the card's as the audit computed them; nothing is recomputed.

LaTeX uses booktabs (\usepackage{booktabs}); CSV is RFC 4180 with full-precision numbers.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			format := fs.String("format", "md", "write the table as `FORMAT`: "+strings.Join(report.TableFormats, ", "))
			return func(ctx context.Context, args []string) error {
				// Flags may follow RUN too.
				if len(args) > 1 {
					if err := fs.Parse(args[1:]); err != nil {
						return &usageError{flagErrorText(fs, err)}
					}
					args = append(args[:1], fs.Args()...)
				}
				if len(args) != 1 {
					return &usageError{"want one run directory RUN"}
				}
				if !slices.Contains(report.TableFormats, *format) {
					return &usageError{fmt.Sprintf("--format %q: want one of %s", *format, strings.Join(report.TableFormats, ", "))}
				}
				dir := args[0]
				if _, err := completion.Check(dir); err != nil {
					return err
				}
				cards, err := report.ReadCardsFile(filepath.Join(dir, rundir.CardsJSON))
				if err != nil {
					return err
				}
				return report.WriteTable(env.stdout, cards, *format)
			}
		},
	}
}
