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
	"time"

	"golang.org/x/term"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/attack"
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
		long: `Examples:

	vidscreen audit --items nextqa.jsonl --out runs/nextqa     # text levels, no models
	vidscreen audit --items 'data/*.jsonl' --benchmarks NExT-QA,STAR --out runs/two
	vidscreen audit --items items.jsonl --videos videos/ --models models/ --out runs/full

Audit answers every item of the given benchmarks with the attackers of the Video-Index
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
			{"Input", []string{"items", "benchmarks", "limit", "sample", "no-dedup", "keep-yesno", "videos", "video-root", "reference", "reference-model", "verify-answers", "predictions", "index-base"}},
			{"Levels", []string{"levels", "frames", "permutations", "cross-pool"}},
			{"Models and devices", []string{"models", "device", "precision", "offload-min-work", "device-memory", "frame-path", "frame-resize", "video-timeout"}},
			{"Output", []string{"out", "log-format", "quiet"}},
			{"Run control", []string{"seed", "workers", "shard", "max-server-failures"}},
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
			verify := fs.Bool("verify-answers", false, "judge each item's marked answer with the vlm_reader role of --models (Video-Index's answer verification): its verdict on 1 frame per second (at most 32), asked again on at most 512 where it says contradicted or not verifiable; the verdicts go to answer_check.json and the cards, and screen flags answer_suspect what it does not keep. Needs --videos")
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
			df := gpuflag.Add(fs, gpuflag.Device|gpuflag.Precision|gpuflag.OffloadMinWork|gpuflag.DeviceMemory)
			framePath := fs.String("frame-path", "host", framePathFlagHelp)
			frameResize := fs.String("frame-resize", runs.FrameResizeProcessor, frameResizeFlagHelp)
			videoTimeout := fs.Duration("video-timeout", 10*time.Minute, "fail a video's items when opening and decoding it takes longer than `DURATION` (0: no limit)")
			logFormat := fs.String("log-format", "text", "write progress as log lines in `FORMAT` (text or json) when stderr is not a terminal")
			quiet := fs.Bool("quiet", false, "write no progress (bars or log lines); errors and the summary still appear")
			sample := fs.Int("sample", 0, "audit at most `N` items per benchmark, drawn by the seed in proportion to the items' task, then group (Video-Index audits 300), refilled from the unsampled items where the duplicates removed before the audit leave (docs/audit.md's glossary); 0 audits every item")
			noDedup := fs.Bool("no-dedup", false, "keep the duplicates the audit otherwise removes first: one item per group of items of a benchmark with the same video, option set and answer and question cosine >= 0.90, the smallest id in string order staying (Video-Index audit/screen.py; counted on each card as duplicates_removed_before_audit)")
			keepYesNo := fs.Bool("keep-yesno", false, "audit the items whose options are a bare yes/no (or true/false) pair as two-option questions (chance 0.5); by default they are set aside before the audit and counted on their card (set_aside: format_yesno), as the Video-Index authors do")
			maxServerFailures := fs.Float64("max-server-failures", runs.DefaultMaxServerFailures, "exit 1 when a served role's server fails more than this `SHARE` (0 to 1) of its queries after the retries; the outputs are still written, those items failed with reason server, and the message gives the command that resumes the run and asks them again")
			shardSpec := fs.String("shard", "", "do only the feature work (decode and image-model inference) of the videos whose stable hash falls in shard `i/N` (0 <= i < N), writing its features and shard.json to --out; vidscreen merge of the N shard directories then writes the cards (docs/shards.md)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return &usageError{fmt.Sprintf("unexpected arguments %q (item files go after --items)", args)}
				}
				spec := runs.Spec{Benchmarks: splitList(*benchmarks), Limit: *limit, Sample: *sample, NoDedup: *noDedup, KeepYesNo: *keepYesNo, Videos: videoRoot,
					Reference: *ref, ReferenceModel: *refModel, VerifyAnswers: *verify, Frames: *frames, Permutations: *perms, CrossPool: *crossPool,
					Models: *modelsDir, Device: df.Device, Precision: df.Precision.String(), OffloadMinWork: df.OffloadMinWork, DeviceMemory: df.DeviceMemory,
					FramePath: *framePath, FrameResize: *frameResize, VideoTimeout: *videoTimeout, Out: *out, LogFormat: *logFormat, Quiet: *quiet, Seed: *seed,
					Workers: *workers, Merge: merge, MaxServerFailures: *maxServerFailures}
				fs.Visit(func(f *flag.Flag) {
					if f.Name == "levels" {
						for _, l := range strings.Split(*levels, ",") {
							spec.Levels = append(spec.Levels, strings.TrimSpace(l))
						}
					}
				})
				// Every use of --videos (the frame and order levels,
				// --reference-model) reads the videos with models: name
				// --models DIR the first time, not the levels (issue 33.1.4).
				if spec.Videos != "" && spec.Models == "" {
					return &usageError{"--videos ROOT needs --models DIR: the frame and order levels read the videos with its image_text, captioner and vlm_reader models (vidscreen models init DIR writes a models folder)"}
				}
				if err := spec.Validate(); err != nil {
					return auditError(err)
				}
				var err error
				if spec.Items, err = expandGlobs(items); err != nil {
					return err
				}
				switch *indexBase {
				case "":
				case "0", "1":
					b := int((*indexBase)[0] - '0')
					spec.IndexBase = &b
				default:
					return &usageError{fmt.Sprintf("--index-base %q: want 0 or 1", *indexBase)}
				}
				if spec.Predictions, err = parseModelFiles(preds); err != nil {
					return err
				}
				if *shardSpec != "" {
					sh, err := runs.ParseShard(*shardSpec)
					if err != nil {
						return &usageError{"--shard: " + err.Error()}
					}
					spec.Shard = &sh
				}
				err = runAuditSpec(ctx, spec, env)
				var sf *runs.ServerFailuresError
				if merge == nil && errors.As(err, &sf) {
					return fmt.Errorf("%w:\n  %s", err, resumeCommand(fs))
				}
				return err
			}
		},
	}
}

// runAuditSpec opens and runs the audit spec describes and prints its summary:
// the cards' table on stdout, how each predictions file matched on stderr.
func runAuditSpec(ctx context.Context, spec runs.Spec, env *environment) error {
	job, err := runs.Open(ctx, spec, runs.Env{Stderr: env.stderr, Getenv: env.getenv})
	if err != nil {
		return auditError(err)
	}
	defer job.Close()
	res, err := job.Run(ctx)
	if err != nil {
		return auditError(err)
	}
	// How each predictions file matched the items goes to stderr even
	// under --quiet: rows that count for nothing must show.
	for _, m := range res.Matches {
		fmt.Fprintf(env.stderr, "vidscreen audit: predictions %s\n", m)
	}
	if res.Shard != nil {
		return printShardSummary(env.stdout, res)
	}
	return printAuditSummary(env.stdout, res)
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

// parseModelFiles reads the --predictions NAME=FILE values (Spec.Validate
// refuses a name given twice: names label the cards' model results).
func parseModelFiles(vals []string) ([]runs.ModelFile, error) {
	var out []runs.ModelFile
	for _, v := range vals {
		name, file, ok := strings.Cut(v, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || file == "" {
			return nil, &usageError{fmt.Sprintf("--predictions %q: want NAME=FILE", v)}
		}
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

// framePathFlagHelp is --frame-path's help.
const framePathFlagHelp = "feed the image tower `host|device` frames: host decodes them to memory " +
	"(swscale, then imageprep on the CPU); device keeps NVDEC's pictures on the GPU, resizes and " +
	"normalises them there and has the CUDA provider read the tensor in place, no host copy " +
	"(bin/vidscreen-cuda, --device cuda, NVDEC); its resize differs from the host's, so its " +
	"embeddings differ within a tolerance and are cached apart. Where it cannot open the run " +
	"takes the host path after one line saying why"

// frameResizeFlagHelp is --frame-resize's help.
const frameResizeFlagHelp = "resize the host frames the ONNX image models read with `processor|ffmpeg`: " +
	"processor decodes them at display size and each model's preprocessor_config.json resizes and crops " +
	"them as transformers' processor does (its pixels, bit for bit); ffmpeg has FFmpeg scale them to the " +
	"largest input side first, faster and in a fraction of the memory, at an embedding cosine of 0.998 " +
	"or more to the processor's on 16:9 video (docs/models.md). Served VLM readers and --frame-path " +
	"device resize their own way with either; the choice is part of the run's identity and cache keys"

// resumeCommand is the vidscreen audit command line of the flags set on fs,
// each value quoted for a POSIX shell where it needs it: what a user runs
// to resume the run.
func resumeCommand(fs *flag.FlagSet) string {
	args := []string{"vidscreen", "audit"}
	fs.Visit(func(f *flag.Flag) {
		if l, ok := f.Value.(*stringList); ok {
			for _, v := range *l {
				args = append(args, "--"+f.Name, shellQuote(v))
			}
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			args = append(args, "--"+f.Name+"="+f.Value.String())
			return
		}
		args = append(args, "--"+f.Name, shellQuote(f.Value.String()))
	})
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell unless it is made only of
// characters no shell treats specially.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
