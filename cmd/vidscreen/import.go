package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/formats"
	"github.com/vidscreen/vidscreen/internal/atomicfile"
)

func newImportCommand() *command {
	return &command{
		name:  "import",
		short: "convert lmms-eval logs, VLMEvalKit tables and benchmarks' own files into items",
		usage: "FORMAT|auto FILE... --out ITEMS.jsonl [flags] | --list",
		long: `Examples:

	vidscreen import lmms-eval results/ --out videomme.jsonl   # an --output_path
	vidscreen import vlmevalkit outputs/M/M_Video-MME.xlsx --out videomme.jsonl
	vidscreen import --list                                    # every FORMAT

Import converts a benchmark as another tool or the benchmark's own repository holds it
into vidscreen's item schema (one JSON object per line: id, benchmark, video, question,
options, answer as a 0-based index, task, duration, and group, start, end, meta where the
file gives them), so that "vidscreen audit --items" reads it. FORMAT names the layout
(vidscreen import --list names every one with the files it expects); auto detects it
and says on stderr what it chose. docs/import.md describes each layout.

lmms-eval reads the samples lmms-eval writes with --log_samples, in every layout: v0.2's
<task>.json (its logs list), samples_<task>_<time>.jsonl and
<YYYYmmdd_HHMMSS>_samples_<task>.jsonl. A FILE may be lmms-eval's --output_path
directory (the samples logs under it are read) or a quoted glob
('out/*/*_samples_*.jsonl'). Up to v0.3 each line's doc is the benchmark's own
record; since v0.4 the question and lettered options are read from input, the prompt,
and the id, video, task and duration from the task's metric object (Video-MME's
videomme_perception_score), or the items from --items-from. Where the metric object
holds the task's own parse of the reply (pred_answer), that is the reply, so the
accuracy is the one lmms-eval reported.

vlmevalkit reads VLMEvalKit's tables: a dataset's TSV or a model's results,
outputs/<model>/<model>_<dataset>.xlsx (or .tsv, .csv, or .json with PRED_FORMAT=json).
The benchmark is <dataset>: the model, the parent folder, is stripped from the name.

Every record is checked by the same rules: letter prefixes ("A. ", "(A) ") are removed
from the options when every option has one, in order; a gold naming several options or
none makes the record open-ended, written aside to ITEMS.open-ended.jsonl and counted,
not audited; a gold or reply that is only a digit is read as the layout defines it,
else refused naming both readings unless --index-base says. stderr says what was read:
items, open-ended records, dropped records with the reason of each, where the items
came from and, for the replies, the accuracy with unparsed replies counted wrong (as
lmms-eval and VLMEvalKit count them) and the first unparsed ones.

When the files hold a model's replies, they are written beside the items as {"id",
"benchmark", "pred"} lines (ITEMS.predictions.jsonl), ready for audit --reference or
--predictions. --check prints what would be imported (option counts, gold positions and
their entropy, chance, videos, tasks, and whether the benchmark is eligible for an
audit) and writes nothing.

A record that cannot be read stops the import with an error naming the file, line or
row, and field, and nothing is written. Importing the same files twice writes the same
bytes. Exit status: 0 success, 2 bad usage or bad input, 1 any other failure.`,
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			list := fs.Bool("list", false, "name every format with the files it reads, and exit")
			out := fs.String("out", "", "write the items to JSONL `FILE` (required unless --check or --list)")
			bench := fs.String("benchmark", "", "name the benchmark `NAME` in every item (default: the file's: the lmms-eval task, the VLMEvalKit dataset)")
			predOut := fs.String("predictions-out", "", "write the model's replies, when the files have them, to `FILE` (default: ITEMS.predictions.jsonl beside --out)")
			videos := fs.String("videos", "", "count the items whose video file is not under `ROOT`")
			itemsFrom := fs.String("items-from", "", "take each record's item from the items `FILE` an import of the benchmark's own files wrote, joined by id, else by lmms-eval's doc_id (for lmms-eval logs without doc)")
			indexBase := fs.String("index-base", "", "read a gold answer or reply that is only a digit as an option index counted from `0|1` (where the layout does not say; else such a digit is refused)")
			check := fs.Bool("check", false, "print what would be imported and whether it is eligible for an audit; write nothing")
			return func(ctx context.Context, args []string) error {
				// Flags may follow the arguments, as in the synopsis.
				var pos []string
				for len(args) > 0 {
					if !strings.HasPrefix(args[0], "-") {
						pos, args = append(pos, args[0]), args[1:]
						continue
					}
					if err := fs.Parse(args); err != nil {
						return &usageError{flagErrorText(fs, err)}
					}
					args = fs.Args()
				}
				all := formats.All()
				if *list {
					if len(pos) > 0 {
						return &usageError{"--list takes no FORMAT or FILE"}
					}
					printFormats(env.stdout, all)
					return nil
				}
				if len(pos) < 2 {
					return &usageError{"want a FORMAT (or auto) and a FILE; vidscreen import --list names the formats"}
				}
				name := pos[0]
				files, err := importFiles(ctx, pos[1:])
				if err != nil {
					return err
				}
				if *out == "" && !*check {
					return &usageError{"--out FILE is required (or --check, which writes nothing)"}
				}
				opt := items.NoOptions()
				switch *indexBase {
				case "":
				case "0", "1":
					opt.IndexBase = int((*indexBase)[0] - '0')
				default:
					return &usageError{fmt.Sprintf("--index-base %q: want 0 or 1", *indexBase)}
				}
				opt.ItemsFrom = *itemsFrom != ""
				f, err := chooseFormat(env.stderr, all, name, files)
				if err != nil {
					return err
				}
				res, err := f.Read(ctx, files, opt)
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				if *itemsFrom != "" {
					if err := joinItemsFrom(ctx, *itemsFrom, res.Rows); err != nil {
						return fmt.Errorf("%w: %v", errBadInput, err)
					}
				}
				label := strings.Join(files, ", ")
				fallback := strings.TrimSuffix(filepath.Base(files[0]), filepath.Ext(files[0]))
				imp, err := importRows(res, *bench, fallback, opt, f.Name == "vlmevalkit")
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				imp.sum.print(env.stderr, label, len(imp.kept))
				if len(imp.kept) == 0 {
					// A header-only table, or questions none of whose
					// answers were given: nothing to audit is bad input,
					// as an empty file is.
					return fmt.Errorf("%w: %s: no items: %d records read, %d open-ended, %d dropped", errBadInput, label, imp.sum.records, len(imp.sum.open), len(imp.sum.dropped))
				}
				if *check {
					printCheck(env.stdout, f.Name, imp, *videos)
					return nil
				}
				if *videos != "" {
					found, total := resolvedVideos(*videos, imp.kept)
					fmt.Fprintf(env.stderr, "vidscreen import: %s: %d of %d videos not found under %s (%d items)\n", label, total-found, total, *videos, missingItems(*videos, imp.kept))
				}
				return writeImport(env.stdout, imp, *out, *predOut)
			}
		},
	}
}

// writeImport writes the items, the open-ended records and the replies.
func writeImport(w io.Writer, imp *imported, out, predOut string) error {
	// The folders named by --out and --predictions-out are made, as the
	// audit makes its --out: the README's first import writes into out/.
	for _, p := range []string{out, predOut} {
		if p == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	if err := atomicfile.WriteBytes(out, imp.items); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d items written to %s\n", len(imp.kept), out)
	stem := strings.TrimSuffix(out, filepath.Ext(out))
	openPath := stem + ".open-ended.jsonl"
	if len(imp.open) > 0 {
		if err := atomicfile.WriteBytes(openPath, imp.open); err != nil {
			return err
		}
		fmt.Fprintf(w, "%d open-ended records written to %s\n", len(imp.sum.open), openPath)
	} else if err := os.Remove(openPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err // a stale file from an earlier import would mislead
	}
	if imp.preds != nil {
		p := predOut
		if p == "" {
			p = stem + ".predictions.jsonl"
		}
		if err := atomicfile.WriteBytes(p, imp.preds); err != nil {
			return err
		}
		fmt.Fprintf(w, "the model's %d replies written to %s\n", imp.sum.replies, p)
	}
	return nil
}

// missingItems counts the items whose video is not under root.
func missingItems(root string, its []importedItem) int {
	n := 0
	for _, it := range its {
		if _, err := harness.ResolveVideo(root, &harness.Item{Video: it.Video}); err != nil {
			n++
		}
	}
	return n
}

// chooseFormat returns the format name names, or for auto the one that
// detects the first file (said on stderr). A named format whose Detect
// refuses a file that exactly one other format claims is a usage error
// naming the right one: "this is an lmms-eval samples file".
func chooseFormat(stderr io.Writer, all []items.Format, name string, files []string) (items.Format, error) {
	head, err := items.Head(files[0])
	if err != nil {
		return items.Format{}, fmt.Errorf("%w: %v", errBadInput, err)
	}
	if name == "auto" {
		f, err := items.Detect(all, files[0], head)
		if err != nil {
			return items.Format{}, &usageError{err.Error()}
		}
		// One import reads one layout: every file must be the first's.
		for _, p := range files[1:] {
			h, err := items.Head(p)
			if err != nil {
				return items.Format{}, fmt.Errorf("%w: %v", errBadInput, err)
			}
			if g, err := items.Detect(all, p, h); err != nil || g.Name != f.Name {
				return items.Format{}, &usageError{fmt.Sprintf("%s is %s, but %s is not: import each layout on its own, or name the format", files[0], f.Name, p)}
			}
		}
		fmt.Fprintf(stderr, "vidscreen import: %s: detected %s (%s)\n", strings.Join(files, ", "), f.Name, f.Title)
		return f, nil
	}
	f, err := items.Lookup(all, name)
	if err != nil {
		return items.Format{}, &usageError{err.Error()}
	}
	if f.Detect != nil && !f.Detect(files[0], head) {
		var others []items.Format
		for _, o := range all {
			if o.Name != f.Name && o.Detect != nil && o.Detect(files[0], head) {
				others = append(others, o)
			}
		}
		if len(others) == 1 {
			o := others[0]
			return items.Format{}, &usageError{fmt.Sprintf("%s: this is %s file, not %s's: use `vidscreen import %s`", files[0], article(o.Title), f.Name, o.Name)}
		}
	}
	return f, nil
}

// article is "an" before a vowel sound, else "a", for "this is an
// lmms-eval samples file".
func article(title string) string {
	if title != "" && strings.ContainsRune("aeiouAEIOU", rune(title[0])) || strings.HasPrefix(title, "lmms") {
		return "an " + title
	}
	return "a " + title
}

// printFormats is import --list: each format's name, title and files.
func printFormats(w io.Writer, all []items.Format) {
	width := 4
	for _, f := range all {
		width = max(width, len(f.Name))
	}
	fmt.Fprintf(w, "%-*s  %s\n", width, "auto", "detect the layout of the first FILE and say which")
	for _, f := range all {
		fmt.Fprintf(w, "%-*s  %s: %s\n", width, f.Name, f.Title, f.Files)
	}
}
