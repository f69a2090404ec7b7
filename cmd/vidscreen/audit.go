package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
	"github.com/vidscreen/vidscreen/harness/demo"
	"github.com/vidscreen/vidscreen/harness/progress"
	"github.com/vidscreen/vidscreen/harness/report"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

func newAuditCommand() *command { return auditCommand(nil) }

// auditCommand is the audit; merge, when set, names the shard directories
// the run merges (vidscreen merge parses the shards' stored flags with it).
func auditCommand(merge []string) *command {
	return &command{
		name:  "audit",
		short: "run the attackers on benchmark items and write report cards",
		usage: "[--items FILE ...] --out DIR [--videos ROOT --models DIR] [flags]",
		long: `Audit answers every item of the given benchmarks with the attackers of the Video-Index
attack pyramid and writes one report card per benchmark: chance, each attacker's accuracy
and margin with a bootstrap interval, the exploitability eps of each level (per task and
group too), near-duplicate questions within and across benchmarks, data-quality counts and,
with a reference model's answers (--reference or --reference-model), s*, the breaking
level, video dependence and residual.

Levels: option, text and pool read only the items' text (pool attackers also learn from
other items' gold answers); with --videos and --models, frame and order run too, whose
attackers see frames of each item's clip without their temporal order (one frame, captions,
a bag of frames, shuffled frames) and become the default with the three text levels.
Learning attackers are scored once per item over five rotating splits.

Without --items it audits the embedded demo: about a thousand real items from each of
NExT-QA, Social-IQ 2.0, STAR and VideoHallucer (harness/demo/data). DIR receives the cards
(cards.json, cards.md, index.html), items.parquet, duplicates.parquet, the embeddings
screening reads, records.log, cache/, run.json and, last, complete.json, which marks the
outputs as finished together. Run the same command again after an interruption: it resumes
from what DIR holds and writes the bytes an uninterrupted run would; run it with only
additions (new benchmarks, levels, models, a reference) and it extends the run. A DIR
holding a run of other flags or inputs is refused, naming what differs.

Progress goes to stderr: on a terminal one line per running stage with its count, rate and
ETA; elsewhere (a pipe, a batch log) log lines in --log-format. A summary of the cards goes
to stdout. Exit status: 0 success, 1 the run failed or was interrupted, 2 bad usage or bad
input (the error names the file, line and field). Every output, attacker and flag in full:
docs/audit.md.`,
		groups: []flagGroup{
			{"Input", []string{"items", "benchmarks", "limit", "sample", "videos", "video-root", "reference", "reference-model", "predictions", "index-base"}},
			{"Levels", []string{"levels", "frames", "permutations", "cross-pool"}},
			{"Models and devices", []string{"models", "device", "precision", "offload-min-work", "device-memory", "frame-path", "video-timeout"}},
			{"Output", []string{"out", "log-format", "quiet"}},
			{"Run control", []string{"seed", "workers", "shard"}},
		},
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			var items stringList
			fs.Var(&items, "items", "read benchmark items from `FILE` (JSONL, or Parquet when it ends in .parquet), or from every file a glob such as 'data/*.jsonl' matches, in name order; repeat for several, read in the order given; without it, audit the embedded default")
			limit := fs.Int("limit", 0, "audit only the first `N` items of each benchmark, in reading order (0: all)")
			benchmarks := fs.String("benchmarks", "", "audit only the items of these comma-separated benchmark `NAMES` (as in the items' benchmark field)")
			out := fs.String("out", "", "write the run to directory `DIR` (created if missing; required)")
			levels := fs.String("levels", "option,text,pool", "run the attackers of these comma-separated `LEVELS` (option, text, pool, frame, order); all five by default when --videos and --models are given")
			ref := fs.String("reference", "", "read a reference model's answers from `FILE` to report s*, the breaking level, video dependence and residual: JSONL {\"id\", \"benchmark\", \"pred\"} (pred a 0-based option index or the reply), a VLMEvalKit result table (.xlsx, .tsv, .csv) or an lmms-eval samples_*.jsonl")
			refModel := fs.Bool("reference-model", false, "compute s* with the vlm_reader role of --models instead of reading --reference: its answers on the full protocol (32 uniform frames of each clip, every option); on a long-video benchmark (videos averaging 300 s or more) where that stays within 0.05 of chance, its 128-frame probe supplies s*, and the card's reference_source says so. Needs --videos")
			var preds stringList
			fs.Var(&preds, "predictions", "report the residual s - c - eps of an evaluated model whose answers `NAME=FILE` holds (any layout --reference reads); repeat for several models")
			indexBase := fs.String("index-base", "", "read a --reference or --predictions reply that is only a digit (\"0\") as an option index counted from `0|1`; without it such a reply is refused, naming both readings")
			seed := fs.Uint64("seed", 1, "seed the prequential item orders, the attackers' guesses and the bootstrap with `N`")
			workers := fs.Int("workers", 0, "run `N` attacker units at once (0: one per CPU); outputs do not depend on it")
			var videoRoot string
			fs.StringVar(&videoRoot, "videos", "", "resolve each item's video (video_path, else video) under `ROOT` and run the frame and order levels; a video outside ROOT fails its items")
			fs.StringVar(&videoRoot, "video-root", "", "the same as --videos `ROOT`")
			modelsDir := fs.String("models", "", "embed item texts with the text_embed model of `DIR`/models.json (and confirm near-duplicates with its dup_confirm model, when listed) instead of the lexical embedder; with --videos, run its image_text and captioner models on the frames")
			frames := fs.Int("frames", 32, "show the frame and order attackers `N` uniform frames of each clip (captions, the shuffled and the contiguous-tenth VLM readers, the mean frame of the effective size); Video-Index uses 32")
			crossPool := fs.Bool("cross-pool", false, "also run copy-xpool and knn-vote-xpool, whose store is preloaded with the run's other benchmarks (Video-Index blog tables 14-15, superscript c): reported beside copy and knn-vote on each card, in no level's eps; holds every item's embeddings in memory")
			perms := fs.Int("permutations", attack.OptionPermutations, "score each model reader on `N` seeded permutations of every item's options besides the original order (the option-permutation audit on the cards; Video-Index uses 8); 0 turns the audit off and saves the N extra prompts per item and reader")
			device := fs.String("device", "cpu", "run the --models models on `DEVICE`: cpu, cuda (every GPU), cuda:N or cuda:N,M,... (every role, text_embed, dup_confirm, lm_reader, image_text, the captioner and vlm_reader, is opened once per device with the CUDA provider on that GPU, and each device gets its own NVDEC decoders and memory budget; the work is shared out so that every device stays busy, and the outputs do not depend on the device count), or cpu:N (N worker sets on the CPU standing in for N devices); cuda on a machine without a usable GPU runs on the CPU and says why. In bin/vidscreen-cuda the audit's searches (the copy, copy-xpool, knn-vote, cross-store and retrieval-reader searches, the near-duplicate join, whose rows stream from disk a tile pair at a time, and the perceptual video identity) also run on the first GPU it names, with or without --models; in bin/vidscreen, or where that GPU does not open, they run on the CPU after one line saying why. Either way they find the same pairs and neighbours")
			precision := fs.String("precision", "fp32", precisionFlagHelp)
			offloadMinWork := fs.Int64("offload-min-work", defaultOffloadMinWork, offloadFlagHelp)
			deviceMemory := fs.String("device-memory", "0", "give each device of --device a memory budget of `SIZE` (40GiB, 512MiB, or bytes) that the model runs placed on it claim from, their batches sized to fit; 0: 90% of each GPU's free memory, and none on the CPU (set it with cpu:N to size and place the work as on GPUs of that size)")
			framePath := fs.String("frame-path", "host", framePathFlagHelp)
			videoTimeout := fs.Duration("video-timeout", 10*time.Minute, "fail a video's items when opening and decoding it takes longer than `DURATION` (0: no limit)")
			logFormat := fs.String("log-format", "text", "write progress as log lines in `FORMAT` (text or json) when stderr is not a terminal")
			quiet := fs.Bool("quiet", false, "write no progress (bars or log lines); errors and the summary still appear")
			sample := fs.Int("sample", 0, "audit at most `N` items per benchmark, drawn by the seed in proportion to the items' task, then group (Video-Index audits 300), one item per near-duplicate group (same video, options and answer, question cosine >= 0.90; the smallest id stays), refilled from the unsampled items; 0 audits every item")
			shardSpec := fs.String("shard", "", "do only the feature work (decode and image-model inference) of the videos whose stable hash falls in shard `i/N` (0 <= i < N), writing its features and shard.json to --out; vidscreen merge of the N shard directories then writes the cards (docs/shards.md)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q (item files go after --items)", args)}
				}
				if *out == "" {
					return &usageError{"--out DIR is required"}
				}
				if *workers < 0 {
					return &usageError{"--workers must be 0 or more"}
				}
				if *sample < 0 {
					return &usageError{"--sample must be 0 (every item) or more"}
				}
				if *perms < 0 || *perms > maxPermutations {
					return &usageError{fmt.Sprintf("--permutations %d: want 0 (no permutation audit) to %d", *perms, maxPermutations)}
				}
				if *frames < 1 || *frames > maxFrames {
					return &usageError{fmt.Sprintf("--frames must be from 1 to %d, got %d", maxFrames, *frames)}
				}
				levelsSet := false
				fs.Visit(func(f *flag.Flag) { levelsSet = levelsSet || f.Name == "levels" })
				spec := *levels
				if !levelsSet && videoRoot != "" && *modelsDir != "" {
					spec = "option,text,pool,frame,order"
				}
				lv, err := parseLevels(spec)
				if err != nil {
					return &usageError{err.Error()}
				}
				video := slices.Contains(lv, harness.LevelFrame) || slices.Contains(lv, harness.LevelOrder)
				if video && (videoRoot == "" || *modelsDir == "") {
					return &usageError{"--levels frame and order need --videos ROOT and --models DIR"}
				}
				if videoRoot != "" && !video && !*refModel {
					return &usageError{"--videos is read only by the frame and order levels and --reference-model; add them to --levels"}
				}
				if *refModel && (videoRoot == "" || *modelsDir == "" || *ref != "") {
					return &usageError{"--reference-model needs --videos ROOT and --models DIR (with a vlm_reader role), and replaces --reference"}
				}
				deviceFrames, err := parseFramePath(*framePath)
				if err != nil {
					return err
				}
				if deviceFrames && (videoRoot == "" || *modelsDir == "") {
					return &usageError{"--frame-path device needs --videos ROOT and --models DIR: it feeds the image tower's frames"}
				}
				if *videoTimeout < 0 {
					return &usageError{"--video-timeout must be 0 or more"}
				}
				if *limit < 0 {
					return &usageError{"--limit must be 0 or more"}
				}
				paths, err := expandGlobs(items)
				if err != nil {
					return err
				}
				opt := runs.Options{Items: paths, Out: *out, Levels: lv, Reference: *ref, Seed: *seed, Workers: *workers, VideoRoot: videoRoot, Frames: *frames, Permutations: permutationsOption(*perms), CrossPool: *crossPool,
					Limit: *limit, Benchmarks: splitList(*benchmarks), Sample: *sample, ReferenceModel: *refModel, Merge: merge}
				switch *indexBase {
				case "":
				case "0", "1":
					b := int((*indexBase)[0] - '0')
					opt.IndexBase = &b
				default:
					return &usageError{fmt.Sprintf("--index-base %q: want 0 or 1", *indexBase)}
				}
				if err := checkOffloadMinWork(*offloadMinWork); err != nil {
					return err
				}
				if opt.Models, err = parseModelFiles(preds); err != nil {
					return err
				}
				if *shardSpec != "" {
					sh, err := runs.ParseShard(*shardSpec)
					if err != nil {
						return &usageError{"--shard: " + err.Error()}
					}
					opt.Shard = &sh
					if opt.Invocation, err = shardInvocation(fs, paths, preds); err != nil {
						return err
					}
				}
				if len(items) == 0 {
					opt.FS, opt.Items = demo.FS(), demo.Items()
				}
				rep, err := newReporter(env.stderr, *logFormat, *quiet)
				if err != nil {
					return err
				}
				defer rep.Close()
				opt.Progress = rep
				var servedRoles *[]servedReader // the roles a server serves, once the models are open
				var frameNote *framePathNote    // with --frame-path device, the path the image tower took
				if *modelsDir != "" {
					budget, err := gpu.ParseBytes(*deviceMemory)
					if err != nil {
						return &usageError{"--device-memory: " + err.Error()}
					}
					// The models' warnings go through the reporter, so that a
					// JSON log stays JSON on every line.
					menv := *env
					if rep != nil {
						menv.stderr = rep.Warnings("vidscreen audit: ")
					}
					ms, err := openAuditModels(*modelsDir, *device, budget, video || *refModel, *out, &menv)
					if err != nil {
						return err
					}
					defer ms.Close()
					servedRoles = &ms.served
					if deviceFrames {
						note := ms.openDeviceFrames(menv.stderr)
						frameNote = &note
					}
					if len(ms.served) > 0 {
						opt.Served = servedModes(ms.served)
					}
					if ms.reader != nil {
						opt.Reader, opt.ReaderName = ms.reader, ms.readerName
						opt.ExtraReaders, opt.ExtraReaderNames = ms.extra, ms.extraNames
					}
					if ms.embed != nil {
						opt.Embedder = ms.embed
						if ms.confirm != nil {
							opt.Confirm = ms.confirm
						}
					}
					defer noteDevices(rep, ms.devices)
					if video || *refModel {
						if ms.video == nil {
							return fmt.Errorf("%w: --models %s has no image_text role (nor a served vlm_reader), which the frame and order levels and --reference-model need", errBadInput, *modelsDir)
						}
						if *refModel && ms.video.VLM == nil {
							return fmt.Errorf("%w: --models %s has no vlm_reader role, which --reference-model needs", errBadInput, *modelsDir)
						}
						opt.Video = ms.video
						opt.Video.Decode.Workers = *workers
						opt.Video.Decode.Options.Timeout = *videoTimeout
					}
				} else if *deviceMemory != "0" {
					return &usageError{"--device-memory needs --models: without models the audit runs no neural network"}
				}
				warn := env.stderr
				if rep != nil {
					warn = rep.Warnings("vidscreen: ")
				}
				joiner, searcher, release, err := auditSearches(*device, *precision, *offloadMinWork, env, warn, rep.Note)
				if err != nil {
					return err
				}
				defer release()
				opt.Joiner, opt.Searcher = joiner, searcher
				res, err := runs.Audit(ctx, opt)
				if err == nil && servedRoles != nil {
					err = errors.Join(noteServed(opt.Out, *servedRoles, rep), servedRefused(*servedRoles))
				}
				if err == nil && frameNote != nil {
					err = noteFramePath(opt.Out, *frameNote, res.Features, rep)
				}
				// Every stage has ended: the reporter's lines are done before
				// the summary, none after it.
				rep.Close()
				if err != nil {
					return auditError(err)
				}
				// How each predictions file matched the items goes to stderr
				// even under --quiet: rows that count for nothing must show.
				for _, m := range res.Matches {
					fmt.Fprintf(env.stderr, "vidscreen audit: predictions %s\n", m)
				}
				if res.Shard != nil {
					return printShardSummary(env.stdout, res)
				}
				return printAuditSummary(env.stdout, res)
			}
		},
	}
}

// newReporter reports progress on w: bars when w is a terminal, log lines
// in format otherwise; nil when quiet.
func newReporter(w io.Writer, format string, quiet bool) (*progress.Reporter, error) {
	if _, err := progress.ParseFormat(format); err != nil {
		return nil, &usageError{"--log-format: " + err.Error()}
	}
	if quiet {
		return nil, nil
	}
	f, ok := w.(*os.File)
	isTerm := ok && term.IsTerminal(int(f.Fd()))
	width := 0
	if isTerm {
		width, _, _ = term.GetSize(int(f.Fd()))
	}
	return progress.New(w, progress.Options{Terminal: isTerm, Width: width, Format: format})
}

// expandGlobs replaces each --items value holding a glob metacharacter by
// the files it matches, in name order; a pattern matching nothing is bad
// usage (the shell would have passed it through unexpanded too).
func expandGlobs(items []string) ([]string, error) {
	var out []string
	for _, p := range items {
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, &usageError{fmt.Sprintf("--items %s: %v", p, err)}
		}
		if len(m) == 0 {
			return nil, &usageError{fmt.Sprintf("--items %s: no file matches", p)}
		}
		out = append(out, m...)
	}
	return out, nil
}

// parseModelFiles reads the --predictions NAME=FILE values; names must be
// distinct, as they label the cards' model results.
func parseModelFiles(vals []string) ([]runs.ModelFile, error) {
	var out []runs.ModelFile
	seen := map[string]bool{}
	for _, v := range vals {
		name, file, ok := strings.Cut(v, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || file == "" {
			return nil, &usageError{fmt.Sprintf("--predictions %q: want NAME=FILE", v)}
		}
		if seen[name] {
			return nil, &usageError{fmt.Sprintf("--predictions: model name %q given twice", name)}
		}
		seen[name] = true
		out = append(out, runs.ModelFile{Name: name, Path: file})
	}
	return out, nil
}

// splitList splits a comma-separated flag value, dropping empty names.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// stringList is a flag that may be repeated.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

func parseLevels(s string) ([]harness.Level, error) {
	var out []harness.Level
	seen := map[harness.Level]bool{}
	for _, f := range strings.Split(s, ",") {
		l, err := harness.ParseLevel(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--levels: %v", err)
		}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out, nil
}

// auditError sorts a failed audit into bad input (status 2) and the rest.
func auditError(err error) error {
	var pe *harness.ParseError
	var cm *rundir.ConfigMismatchError
	var se *runs.ShardError
	switch {
	case errors.As(err, &pe), errors.As(err, &cm), errors.As(err, &se), errors.Is(err, rundir.ErrNotRunDir):
		return fmt.Errorf("%w: %v", errBadInput, err)
	}
	return err
}

func printAuditSummary(w io.Writer, res *runs.Result) error {
	// The table fits the terminal it is printed on (100 columns anywhere
	// else).
	width := report.SummaryWidth
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			width = cols
		}
	}
	if err := report.WriteSummaryWidth(w, res.Cards, width); err != nil {
		return err
	}
	if err := report.WriteShortfalls(w, res.Cards, width); err != nil {
		return err
	}
	for _, c := range res.Cards {
		for _, m := range c.Models {
			if m.Accuracy == nil {
				fmt.Fprintf(w, "%s on %s: no answers\n", m.Name, c.Benchmark)
				continue
			}
			residual := "no level ran"
			if m.Residual != nil {
				residual = fmt.Sprintf("residual s - c - eps %+.3f", *m.Residual)
			}
			fmt.Fprintf(w, "%s on %s: accuracy %.3f over %d items, chance %.3f, %s\n", m.Name, c.Benchmark, *m.Accuracy, m.N, *m.Chance, residual)
		}
	}
	_, err := fmt.Fprintf(w, "\n%d items; outputs in %s: %s, %s, %s, %s, %s\n", res.Items, res.Dir,
		rundir.CardsJSON, rundir.CardsMarkdown, rundir.IndexHTML, rundir.ItemsParquet, rundir.DuplicatesFile)
	return err
}

// maxFrames bounds --frames: a VLM prompt of more frames than this fits no
// model's context, and each frame is decoded and embedded per clip.
const maxFrames = 1024

// maxPermutations bounds --permutations: each permutation is one more prompt
// per item and model reader.
const maxPermutations = 64

// permutationsOption maps --permutations onto runs.Options.Permutations,
// where 0 means the default count and a negative one none; the default is
// left at 0 so that config.json stays as it was for runs that do not set it.
func permutationsOption(n int) int {
	switch n {
	case 0:
		return -1
	case attack.OptionPermutations:
		return 0
	}
	return n
}
