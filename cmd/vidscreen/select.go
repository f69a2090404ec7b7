package main

import (
	"context"
	"flag"

	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/harness/release"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/selection"
)

func newSelectCommand() *command {
	return &command{
		name:  "select",
		short: "compose a benchmark from a screened audit, red-team it and release it under a lockfile",
		usage: "RUN --out DIR (--budget N | --hardest K [--per group]) [--seed S] [--sources A,B] [--durations G,...] [--rounds 3] [--videos ROOT] [--models DIR] [--export-lmms-eval DIR] [--export-vlmevalkit FILE.tsv]",
		long: `Examples:

	vidscreen select runs/nextqa --out rel/hard --budget 200
	vidscreen select runs/nextqa --out rel/hard --hardest 50 --per group
	vidscreen select runs/nextqa --out rel/h --budget 200 --export-vlmevalkit rel/h.tsv

Select builds a release from the items screening keeps in the run directory RUN of a
finished audit (Video-Index 5.2-5.3). It reads the screen in RUN/screen (or --screen DIR),
which "vidscreen screen RUN" writes; when there is none, it screens the run itself with
the defaults of "vidscreen screen" (every attacker screens) and says so on stderr, writing
nothing into RUN.

--budget N draws a coverage composition: deterministic for --seed, round-robin over
duration groups (0-10s, 10-30s, 30-60s, 1-3m, 3-10m, 10-30m, 30m+, unknown), event types
(--events task or group) and sources, preferring within a source less templated questions
(smaller question-template clusters), then a lower worst-case attacker percentile. Caps:
one item per video and per visual scene (videos whose mean frame embeddings have cosine >=
--scene-threshold, by leader clustering; per video without frame embeddings), five per
question template, 5% of the budget per source when the query admits several sources. A
video is identified by its content (the SHA-256 of its file) when --videos ROOT is given,
as the audit's cards count shared videos (Video-Index 4.5), else by its video id. A
duration group that can give nothing while below its share of the budget climbs its own
ladder one step (Video-Index pool/select.py relax: its scene cap up to 4, then its
template cap doubled once, then exempt from the source cap; the video cap is never
relaxed), each step recorded with its group and reason. --hardest K takes instead the K
items of each --per group (capability group, task or benchmark) with the lowest maximum
percentile over the attackers' margins, one item per video (Video-Index: 210 per group).

Red-team gate (Video-Index 5.2): the audit's attackers that learn from their pool (the
option, text and pool learners: fixed-position, option-artifact, position-prior, copy,
siblings, knn-vote, regression; retrieval-reader with the run's lm_reader from --models)
attack the selection as its own pool, on the released option order and the run's
rotating orders; an item one of them answers correctly, not by a seeded guess (the solve
rule of harness/solve), is dropped when that attacker is significant on the selection,
never taken again, and the selection refilled, for at most --rounds rounds. With --videos
ROOT and --models DIR naming the audit's models, the VLM at 32 frames in order
(full-video-reader, on the run's vlm_reader, the larger VLM, even where screening's
32-frame steps used screen_reader: Video-Index 5.2) and the caption attacker
(captions-reader: the run's captioner on the same 32 frames, the run's lm_reader
reading the captions) re-read the selection on the released option order too,
through the audit's feature stage, and drop what they answer correctly with a margin
above log 2, as screening's readers do. The other attackers that answer each item
alone (the other readers, the frame and order attackers; the readers above without the
flags and models they need) carry over their screened verdicts, which drop an item only
where the run's card finds the attacker significant on the item's benchmark. The last
attack is the residual exploitability per level (abstentions counted at chance; the
screening steps, cross-pool variants and further models of a Video-Oasis test reported
aside, in no level and no Holm family, as on the cards); what it still solves after the
last round stays, counted.
Texts are embedded as the audit did: lexically (fitted on the selection) or, when the
run used a text_embed model, by the same model from --models.
In bin/vidscreen-cuda, --device cuda:N also runs the searches (the scenes' leader
clustering, the red team's copy joins, k-NN and retrieval top-k) on that GPU, as the audit
runs its own (--precision, --offload-min-work); the release is the same bytes.

Registrar: each item's options are shuffled (seeded by --seed and the item; items with
letter-prefixed or meta options keep their order) and its answer updated. DIR receives:

  items.jsonl    the release in the item schema: benchmark is the release name, id
                 "<source>/<id>", meta {source, source_id, option_order, source_meta};
                 video_path, start, end and the source's meta only with --items (the
                 audit's item files, checked against the run by content)
  lockfile.json  {"release": name, vidscreen, selector version, pool {snapshot hash,
                 items, run (sha256 of RUN/config.json), screen options}, query, seed,
                 attackers, attack configuration, red_team, rounds, relaxations, items}
  report.md, report.html
                 the composition, caps and relaxations, the gate's rounds and the
                 residual exploitability per level and attacker

--export-lmms-eval DIR writes the release as an lmms-eval task directory as well: its items
as a local dataset (dataset.jsonl), utils.py, six tasks (<prefix>_video, the video file;
_1fps, _64frame, _32frame, _8frame, frames at one per second under those caps; _blind,
question and options only under four seeded option orders) in the group <prefix> (the
release name with _ for -), accuracy overall and per capability group, and a README.md:
lmms_eval --include_path DIR --tasks <prefix>, with VIDSCREEN_VIDEOS naming the video root.
--export-vlmevalkit FILE.tsv writes it as a VLMEvalKit video MCQ table (index, question_id,
video, video_path, question, candidates as a Python list, answer as a letter, task_type,
category, duration). Both import back: vidscreen import lmms-eval-task DIR/dataset.jsonl,
vidscreen import vlmevalkit FILE.tsv --benchmark <release>. Both need the audit's item
files, which give each item its video_path and clip: --items, or by default the paths the
run recorded in run.json (checked by SHA-256 against config.json; stderr says so). With
--models on a run with video levels, the run's video root is taken as --videos the same way.
See docs/select.md.

The release name is "vidscreen-" and the first 16 hex digits of the SHA-256 of the
lockfile (without its name): the same run, screen, flags and seed give the same name and
byte-identical files at any --workers; anything else gives another name. Select prints a
short summary (release, items, the gate's rounds, the residual per level); --json prints
it as JSON instead.

Exit 2: bad flags, RUN not a finished audit, a source or duration group the pool does not
hold. Exit 3: the gate could not clean the release: a level is still significant after
the rounds, or the release holds fewer items than --budget (dropping every item a learner
answers can create new position and option artifacts, and the refill can run out); stderr
says which, the release is written to read, and --accept-residual exits 0 instead.`,
		groups: []flagGroup{
			{"Input and models", []string{"screen", "items", "models", "carry-readers", "device", "precision", "offload-min-work"}},
			{"What to release", []string{"budget", "hardest", "per", "sources", "durations", "events", "admit-suspects"}},
			{"Caps", []string{"cap-video", "cap-scene", "cap-template", "cap-source", "scene-threshold"}},
			{"Red-team gate and run control", []string{"rounds", "accept-residual", "seed", "workers"}},
			{"Output", []string{"out", "json", "export-lmms-eval", "export-vlmevalkit"}},
		},
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			spec := selection.DefaultSpec()
			fs.StringVar(&spec.Out, "out", "", "write the release to `DIR` (required)")
			fs.StringVar(&spec.ExportLMMSEval, "export-lmms-eval", "", "also write the release as an lmms-eval task directory `DIR`")
			fs.StringVar(&spec.ExportVLMEvalKit, "export-vlmevalkit", "", "also write the release as a VLMEvalKit video MCQ table `FILE.tsv`")
			fs.IntVar(&spec.Budget, "budget", 0, "compose a release of `N` items")
			fs.IntVar(&spec.Hardest, "hardest", 0, "take the `K` hardest items per --per group instead of a composition")
			per := fs.String("per", release.PerGroup, "what --hardest takes K items of: `group`, task or benchmark")
			fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "seed the selection's orders, the red team's orders and the option shuffle with `S`")
			sources := fs.String("sources", "", "comma-separated `NAMES` of the benchmarks the release may draw from (default all)")
			durations := fs.String("durations", "", "comma-separated duration `GROUPS` the release may draw from (default all)")
			events := fs.String("events", release.EventsTask, "the event type the composition rotates over: `task` or group")
			fs.BoolVar(&spec.AdmitSuspects, "admit-suspects", false, "let items the audit's answer verification flags answer_suspect (audit --verify-answers) into the release; by default they stay out")
			fs.IntVar(&spec.Rounds, "rounds", spec.Rounds, "at most `N` red-team rounds of drop and refill (0: attack once, drop nothing)")
			fs.StringVar(&spec.Screen, "screen", "", "read the screen from `DIR` (default RUN/screen)")
			sceneThreshold := fs.Float64("scene-threshold", release.DefaultSceneThreshold, "mean-frame cosine `T` at or above which two videos are one visual scene")
			capVideo := fs.Int("cap-video", selection.DefaultCapVideo, "initial cap of items per video (`N`)")
			capScene := fs.Int("cap-scene", selection.DefaultCapScene, "initial cap of items per visual scene (`N`)")
			capTemplate := fs.Int("cap-template", selection.DefaultCapTemplate, "initial cap of items per question template (`N`)")
			capSource := fs.Float64("cap-source", selection.DefaultCapSource, "initial cap per source, as a `SHARE` of the budget")
			fs.IntVar(&spec.Workers, "workers", 0, "run `N` red-team attackers at once (0: GOMAXPROCS); the release does not depend on it")
			fs.StringVar(&spec.Models, "models", "", "models `DIR` with the text_embed role the audit used, when it used one; with --videos, full-video-reader (vlm_reader) and captions-reader (captioner, lm_reader) re-run on the released option order")
			fs.BoolVar(&spec.CarryReaders, "carry-readers", false, "keep the audit's model readers' verdicts: with --models on a run with video levels, take no video root from the run, so full-video-reader and captions-reader are not re-run on the released order")
			df := gpuflag.Add(fs, gpuflag.Device|gpuflag.Precision|gpuflag.OffloadMinWork)
			fs.StringVar(&spec.Videos, "videos", "", "the audit's video `ROOT` (default with --models: the run's, from run.json): videos are then identified by content (the SHA-256 of each file) for the one-per-video cap, as the cards count shared videos; the items' video_path comes from --items or the run's item files")
			asJSON := fs.Bool("json", false, "print the summary as JSON (default: a short table)")
			acceptResidual := fs.Bool("accept-residual", false, "exit 0 when the gate could not clean the release (a level still significant after the rounds, or fewer items than --budget); without it select exits 3")
			var itemFiles stringList
			fs.Var(&itemFiles, "items", "the audit's item `FILE` (repeatable; default for the exports and --videos: the run's, from run.json, checked by SHA-256): the release then keeps each item's video_path, start, end and meta, which a screen does not carry")
			return func(ctx context.Context, args []string) error {
				// Flags may follow RUN too.
				if len(args) > 1 {
					if err := fs.Parse(args[1:]); err != nil {
						return &usageError{flagErrorText(fs, err)}
					}
					args = append(args[:1], fs.Args()...)
				}
				if len(args) != 1 {
					return &usageError{"name one run directory: vidscreen select RUN --out DIR --budget N"}
				}
				spec.Run, spec.Items = args[0], itemFiles
				spec.Sources, spec.Durations = splitList(*sources), splitList(*durations)
				spec.Device, spec.Precision, spec.OffloadMinWork = df.Device, df.Precision.String(), df.OffloadMinWork
				// The flags one mode alone reads are set only when given, so
				// that the other mode refuses them.
				fs.Visit(func(f *flag.Flag) {
					switch f.Name {
					case "per":
						spec.Per = per
					case "events":
						spec.Events = events
					case "cap-video":
						spec.CapVideo = capVideo
					case "cap-scene":
						spec.CapScene = capScene
					case "cap-template":
						spec.CapTemplate = capTemplate
					case "cap-source":
						spec.CapSource = capSource
					case "scene-threshold":
						spec.SceneThreshold = sceneThreshold
					}
				})
				sum, err := selection.Select(ctx, spec, runs.Env{Stderr: env.stderr, Getenv: env.getenv})
				if err != nil {
					return err
				}
				if err := printSelectSummary(env.stdout, sum, *asJSON); err != nil {
					return err
				}
				return gateVerdict(env.stderr, sum, *acceptResidual)
			}
		},
	}
}
