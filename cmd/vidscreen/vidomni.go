package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/vidscreen/vidscreen/harness/vidomni"
)

func vidomniSubcommands() []*subcommand {
	return []*subcommand{vidomniScore(), vidomniSplit(), vidomniVerify(), vidomniCaption()}
}

func newVidomniCommand() *command {
	return &command{
		name:  "vidomni",
		short: "VidOmni-Bench sentence-wise verification: score, split, verify, caption",
		usage: "score|split|verify|caption [flags] [arguments]",
		long:  vidomniHelp(),
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			return func(ctx context.Context, args []string) error {
				return dispatch(ctx, "vidomni", vidomniSubcommands(), args, env)
			}
		},
	}
}

// vidomniHelp is the help page of "vidscreen vidomni": every subcommand
// with its text and flags.
func vidomniHelp() string {
	return subcommandHelp("vidomni", `Examples:

	vidscreen vidomni score --labels labels.jsonl --verdicts clip.jsonl --out out/vo
	vidscreen vidomni verify --labels labels.jsonl --models models/ --out clip.jsonl
	vidscreen vidomni split caption.txt

Vidomni runs the sentence-wise event verification of VidOmni-Bench (seed 000):
dense captions split into sentences, each labelled Correct, Incorrect (a hallucination)
or Unknown, and verifiers that must find the Incorrect ones. docs/vidomni.md gives the
file layouts and how each number is computed.`, vidomniSubcommands())
}

func vidomniScore() *subcommand {
	return &subcommand{
		name:  "score",
		usage: "--labels FILE --verdicts FILE [--verdicts FILE ...] --out DIR [flags]",
		long: `Score reads the labelled video-caption pairs and the verifiers' verdicts and
writes DIR/scores.json, scores.md, index.html (with the complexity type x duration
heat map) and sentences.parquet (one row per sentence and verifier). Incorrect
sentences are the positive class and Unknown ones are left out; precision, recall
and F1 are computed per pair and averaged over pairs (the paper's equation 2),
overall, by complexity type, by duration bracket, by error category (recall) and
per verifier x caption source (the diagonal is self-verification), and for the
cross-model ensembles (a sentence is Incorrect if either verifier says so).
A verdict gives labels (one 0|1 per sentence) or the verifier's raw reply, parsed
as the paper's prompt asks (first line a JSON dictionary sentence_1..sentence_N);
replies that cannot be parsed are counted and score 0 for their pair. Every verifier
must judge every labelled pair that has a Correct or Incorrect sentence: a missing
verdict is bad input (exit 2) naming the verifier and its first missing pair, since
leaving a hard pair out would raise a verifier's mean. --allow-missing scores each
missing pair 0 instead (nothing flagged, its Incorrect sentences missed) and the
reports count them per verifier.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			def := vidomni.DefaultScoreOptions()
			var opt vidomni.ScoreOptions
			fs.StringVar(&opt.Labels, "labels", "", "the labels JSONL `FILE`: one video-caption pair a line (required)")
			fs.Var((*stringList)(&opt.Verdicts), "verdicts", "a verdicts JSONL `FILE` (repeat for several files; at least one)")
			fs.StringVar(&opt.Out, "out", "", "write the reports to directory `DIR` (created if missing; required)")
			fs.StringVar(&opt.Brackets, "brackets", def.Brackets, "duration brackets `SPEC`: NAME:MAX_SECONDS,...,NAME (the last unbounded)")
			fs.StringVar(&opt.NoIncorrect, "no-incorrect", def.NoIncorrect, "score pairs without an Incorrect sentence by `POLICY`: zero (0/0 is 0, as the paper's mean over all pairs), one (0/0 is 1) or skip (leave them out)")
			fs.Var((*stringList)(&opt.Self), "self", "`VERIFIER=SOURCE`: the verifier is that caption source, for the self-verification diagonal when the names differ (repeatable)")
			fs.Var((*stringList)(&opt.Ensembles), "ensemble", "score the ensemble `A+B` of two verifiers (repeatable; default every pair)")
			fs.BoolVar(&opt.AllowMissing, "allow-missing", false, "score a pair a verifier gave no verdict on as 0 (its Incorrect sentences missed) instead of refusing the verdicts")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q", args)}
				}
				s, err := vidomni.ScoreFiles(opt)
				if err != nil {
					return err
				}
				fmt.Fprintf(env.stdout, "%-24s %6s %9s %7s %6s %9s %8s\n", "verifier", "pairs", "precision", "recall", "F1", "unparsed", "missing")
				missing := 0
				for _, n := range s.VerifierNames() {
					v := s.Verifiers[n]
					missing += v.Missing
					fmt.Fprintf(env.stdout, "%-24s %6d %8.1f%% %6.1f%% %5.1f%% %9d %8d\n", n, v.Pairs, 100*v.Precision, 100*v.Recall, 100*v.F1, v.Unparsed, v.Missing)
				}
				if missing > 0 {
					fmt.Fprintf(env.stdout, "pairs without a verdict: %d; each scores 0 for its verifier (--allow-missing)\n", missing)
				}
				if n := s.Unparsed(); n > 0 {
					fmt.Fprintf(env.stdout, "replies that could not be parsed: %d; each scores 0 for its pair (scores.md lists them)\n", n)
				}
				fmt.Fprintf(env.stdout, "outputs in %s: scores.json, scores.md, index.html, sentences.parquet\n", opt.Out)
				return nil
			}
		},
	}
}

func vidomniSplit() *subcommand {
	return &subcommand{
		name:  "split",
		usage: "[--format lines|json|numbered] [FILE]",
		long: `Split cuts a dense caption (FILE, or standard input) into sentences as the
verifier prompt numbers them: at '.', '!', '?' and ellipses followed by a capital,
keeping abbreviations (Mr., e.g., etc. before lower case), initials (J. R. R.),
dotted acronyms (U.S.), decimals (3.5), quotes ("Exit." and ...) and ellipses
followed by lower case whole; list items and blank lines end sentences.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			format := fs.String("format", "lines", "print the sentences as `FORMAT`: lines (one a line), json (an array) or numbered (sentence_K: text)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 1 {
					return &usageError{fmt.Sprintf("want at most one FILE, got %d arguments", len(args))}
				}
				switch *format {
				case "lines", "json", "numbered":
				default:
					return &usageError{fmt.Sprintf("--format %q: want lines, json or numbered", *format)}
				}
				in := env.stdin
				if len(args) == 1 {
					f, err := os.Open(args[0])
					if err != nil {
						return fmt.Errorf("%w: %v", errBadInput, err)
					}
					defer f.Close()
					in = f
				}
				data, err := io.ReadAll(in)
				if err != nil {
					return err
				}
				sentences := vidomni.Split(string(data))
				switch *format {
				case "json":
					if sentences == nil {
						sentences = []string{}
					}
					enc := json.NewEncoder(env.stdout)
					enc.SetEscapeHTML(false)
					return enc.Encode(sentences)
				case "numbered":
					for i, s := range sentences {
						fmt.Fprintf(env.stdout, "sentence_%d: %s\n", i+1, s)
					}
				default:
					for _, s := range sentences {
						fmt.Fprintln(env.stdout, s)
					}
				}
				return nil
			}
		},
	}
}
