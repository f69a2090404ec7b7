package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/gpu"
	"github.com/vidscreen/vidscreen/gpu/gpuflag"
	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/harness/textembed"
	"github.com/vidscreen/vidscreen/harness/textembed/onnxembed"
	"github.com/vidscreen/vidscreen/models"
)

// selectSummary is what select prints.
type selectSummary struct {
	Release     string                  `json:"release"`
	Out         string                  `json:"out"`
	Items       int                     `json:"items"`
	Pool        int                     `json:"pool"`
	Relaxations int                     `json:"relaxations"`
	Rounds      []release.Round         `json:"rounds"`
	Residual    []release.LevelResidual `json:"residual"`
	Shortfall   string                  `json:"shortfall,omitempty"`
	// LMMSEval and VLMEvalKit are where the exports went, when asked.
	LMMSEval   string `json:"lmms_eval,omitempty"`
	VLMEvalKit string `json:"vlmevalkit,omitempty"`
}

func newSelectCommand() *command {
	return &command{
		name:  "select",
		short: "compose a benchmark from a screened audit, red-team it and release it under a lockfile",
		usage: "RUN --out DIR (--budget N | --hardest K [--per group]) [--seed S] [--sources A,B] [--durations G,...] [--rounds 3] [--videos ROOT] [--models DIR] [--export-lmms-eval DIR] [--export-vlmevalkit FILE.tsv]",
		long: `Select builds a release from the items screening keeps in the run directory RUN of a
finished audit (Video-Index 5.2-5.3). It reads the screen in RUN/screen (or --screen DIR),
which "vidscreen screen RUN" writes; when there is none, it screens the run itself with
the defaults of "vidscreen screen" (every attacker screens) and says so on stderr, writing
nothing into RUN.

--budget N draws a coverage composition: deterministic for --seed, round-robin over
duration groups (0-15s, 15-60s, 1-3m, 3-10m, 10-30m, 30-60m, 60m+, unknown), event types
(--events task or group) and sources, preferring within a source less templated questions
(smaller near-duplicate clusters), then a lower worst-case attacker percentile. Caps: one
item per video and per visual scene (videos whose mean frame embeddings have cosine >=
--scene-threshold, by leader clustering; per video without frame embeddings), five per
question template (near-duplicate cluster), 5% of the budget per source. A video is
identified by its content (the SHA-256 of its file) when --videos ROOT is given, as the
audit's cards count shared videos (Video-Index 4.5), else by its video id. When the pool
cannot fill the budget under the caps, the cap that blocks the most remaining items on
its own is relaxed one step (source share doubled, template cap doubled, scene or video
cap + 1) and the relaxation recorded with its reason. --hardest K takes instead the K
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
vidscreen import vlmevalkit FILE.tsv --benchmark <release>. See docs/select.md.

The release name is "vidscreen-" and the first 16 hex digits of the SHA-256 of the
lockfile (without its name): the same run, screen, flags and seed give the same name and
byte-identical files at any --workers; anything else gives another name. Select prints a
JSON summary. Exit 2: bad flags, RUN not a finished audit, a source or duration group
the pool does not hold.`,
		groups: []flagGroup{
			{"Input and models", []string{"screen", "items", "models", "device", "precision", "offload-min-work"}},
			{"What to release", []string{"budget", "hardest", "per", "sources", "durations", "events"}},
			{"Caps", []string{"cap-video", "cap-scene", "cap-template", "cap-source", "scene-threshold"}},
			{"Red-team gate and run control", []string{"rounds", "seed", "workers"}},
			{"Output", []string{"out", "export-lmms-eval", "export-vlmevalkit"}},
		},
		flags: func(fs *flag.FlagSet, env *environment) func(ctx context.Context, args []string) error {
			out := fs.String("out", "", "write the release to `DIR` (required)")
			exportLMMS := fs.String("export-lmms-eval", "", "also write the release as an lmms-eval task directory `DIR`")
			exportVLM := fs.String("export-vlmevalkit", "", "also write the release as a VLMEvalKit video MCQ table `FILE.tsv`")
			budget := fs.Int("budget", 0, "compose a release of `N` items")
			hardest := fs.Int("hardest", 0, "take the `K` hardest items per --per group instead of a composition")
			per := fs.String("per", release.PerGroup, "what --hardest takes K items of: `group`, task or benchmark")
			seed := fs.Uint64("seed", 1, "seed the selection's orders, the red team's orders and the option shuffle with `S`")
			sources := fs.String("sources", "", "comma-separated `NAMES` of the benchmarks the release may draw from (default all)")
			durations := fs.String("durations", "", "comma-separated duration `GROUPS` the release may draw from (default all)")
			events := fs.String("events", release.EventsTask, "the event type the composition rotates over: `task` or group")
			rounds := fs.Int("rounds", 3, "at most `N` red-team rounds of drop and refill (0: attack once, drop nothing)")
			screenDir := fs.String("screen", "", "read the screen from `DIR` (default RUN/screen)")
			sceneThreshold := fs.Float64("scene-threshold", release.DefaultSceneThreshold, "mean-frame cosine `T` at or above which two videos are one visual scene")
			capVideo := fs.Int("cap-video", 1, "initial cap of items per video (`N`)")
			capScene := fs.Int("cap-scene", 1, "initial cap of items per visual scene (`N`)")
			capTemplate := fs.Int("cap-template", 5, "initial cap of items per question template (`N`)")
			capSource := fs.Float64("cap-source", 0.05, "initial cap per source, as a `SHARE` of the budget")
			workers := fs.Int("workers", 0, "run `N` red-team attackers at once (0: GOMAXPROCS); the release does not depend on it")
			modelsDir := fs.String("models", "", "models `DIR` with the text_embed role the audit used, when it used one; with --videos, full-video-reader (vlm_reader) and captions-reader (captioner, lm_reader) re-run on the released option order")
			df := gpuflag.Add(fs, gpuflag.Device|gpuflag.Precision|gpuflag.OffloadMinWork)
			videos := fs.String("videos", "", "the audit's video `ROOT`: videos are then identified by content (the SHA-256 of each file) for the one-per-video cap, as the cards count shared videos")
			var itemFiles stringList
			fs.Var(&itemFiles, "items", "the audit's item `FILE` (repeatable): the release then keeps each item's video_path, start, end and meta, which a screen does not carry")
			return func(ctx context.Context, args []string) error {
				// Flags may follow RUN too.
				if len(args) > 1 {
					if err := fs.Parse(args[1:]); err != nil {
						return &usageError{err.Error()}
					}
					args = append(args[:1], fs.Args()...)
				}
				if len(args) != 1 {
					return &usageError{"name one run directory: vidscreen select RUN --out DIR --budget N"}
				}
				if *out == "" {
					return &usageError{"--out DIR is required"}
				}
				if *exportVLM != "" && !strings.EqualFold(filepath.Ext(*exportVLM), ".tsv") {
					return &usageError{fmt.Sprintf("--export-vlmevalkit %s: want a .tsv file (VLMEvalKit reads its tables by their suffix)", *exportVLM)}
				}
				if *rounds < 0 {
					return &usageError{fmt.Sprintf("--rounds %d: want 0 or more", *rounds)}
				}
				if !(*sceneThreshold > -1 && *sceneThreshold <= 1) {
					return &usageError{fmt.Sprintf("--scene-threshold %v: want a cosine in (-1, 1]", *sceneThreshold)}
				}
				// A flag that the chosen mode does not read is refused, not
				// ignored: the user would believe it shaped the release.
				hardestMode := *hardest > 0 || *budget == 0
				var unread []string
				fs.Visit(func(f *flag.Flag) {
					switch f.Name {
					case "events", "cap-video", "cap-scene", "cap-template", "cap-source", "scene-threshold":
						if hardestMode {
							unread = append(unread, "--"+f.Name)
						}
					case "per":
						if !hardestMode {
							unread = append(unread, "--per")
						}
					}
				})
				if len(unread) > 0 {
					mode := "--budget composes under caps"
					if hardestMode {
						mode = "--hardest takes K per group, one item per video, without the composition's caps"
					}
					return &usageError{fmt.Sprintf("%s: %s, so it would not read %s", strings.Join(unread, ", "), mode, strings.Join(unread, ", "))}
				}
				q := release.Query{Budget: *budget, Sources: splitList(*sources), Durations: splitList(*durations), Events: *events}
				if hardestMode {
					q = release.Query{Hardest: *hardest, Per: *per, Budget: *budget, Sources: q.Sources, Durations: q.Durations}
				} else {
					q.Caps = &release.Caps{PerVideo: *capVideo, PerScene: *capScene, PerTemplate: *capTemplate, SourceShare: *capSource}
				}
				if err := q.Check(); err != nil {
					return &usageError{err.Error()}
				}
				runDir := args[0]
				// A run whose outputs are not complete together (an audit
				// killed while writing them) is refused before anything is
				// read from it.
				if _, err := completion.Check(runDir); err != nil {
					return fmt.Errorf("%w: %s is not a finished audit: %v", errBadInput, runDir, err)
				}
				cfgBytes, err := os.ReadFile(filepath.Join(runDir, rundir.ConfigFile))
				if err != nil {
					return fmt.Errorf("%w: %s is not a finished audit: %v", errBadInput, runDir, err)
				}
				var cfg rundir.Config
				if err := json.Unmarshal(cfgBytes, &cfg); err != nil {
					return fmt.Errorf("%w: %s: %v", errBadInput, filepath.Join(runDir, rundir.ConfigFile), err)
				}
				s, err := openScreen(runDir, *screenDir, env)
				if err != nil {
					return err
				}
				sig, err := readSignificant(filepath.Join(runDir, rundir.CardsJSON))
				if err != nil {
					return err
				}
				searches, err := selectSearches(df.Device, df.Precision, df.OffloadMinWork, env)
				if err != nil {
					return err
				}
				defer searches.done()
				pool, err := release.FromScreen(ctx, s, cfg.AttackerVersions, sig, float32(*sceneThreshold), searches.options())
				if err != nil {
					return fmt.Errorf("%w: %v", errBadInput, err)
				}
				if len(itemFiles) > 0 {
					if err := restoreItems(ctx, pool, itemFiles, cfg); err != nil {
						return err
					}
				}
				videosBy := pool.VideosBy
				if *videos != "" {
					n, err := release.IdentifyVideos(ctx, pool, *videos)
					if err != nil {
						return err
					}
					if n.Read == 0 && n.Unread > 0 {
						return fmt.Errorf("%w: --videos %s: no video of the pool could be read (first: %s)", errBadInput, *videos, n.FirstUnread)
					}
					videosBy = fmt.Sprintf("content (SHA-256 of the video file under --videos): %d items read, %d by video id", n.Read, n.Unread)
					if n.Unread > 0 {
						fmt.Fprintf(env.stderr, "vidscreen select: %d of %d videos could not be read under %s and count by video id (first: %s)\n", n.Unread, n.Read+n.Unread, *videos, n.FirstUnread)
					}
				}
				team := &release.AttackTeam{Config: cfg.Attack, Seed: *seed, Workers: *workers}
				team.Config.Joiner, team.Config.Searcher = searches.joiner, searches.searcher
				readers, closeReaders, err := openSelectReaders(ctx, *modelsDir, *videos, df.Device, *out, cfg, env)
				if err != nil {
					return err
				}
				defer closeReaders()
				if readers != nil {
					team.Readers, team.Reader = readers, readers.letters
				}
				if team.Reader == nil {
					lr, closeLetters, err := openSelectLetters(ctx, *modelsDir, df.Device, *out, cfg, env)
					if err != nil {
						return err
					}
					defer closeLetters()
					team.Reader = lr
				}
				embedder := "lexical, fitted on the selection"
				if !strings.HasPrefix(cfg.Embedder, "lexical") {
					emb, closeFn, err := openSelectEmbedder(*modelsDir, df.Device, cfg.Embedder, env)
					if err != nil {
						return err
					}
					defer closeFn()
					team.Embedder, embedder = emb, emb.Name()
				}
				attackCfg, err := json.Marshal(cfg.Attack)
				if err != nil {
					return err
				}
				screenCfg, err := json.Marshal(s.Options)
				if err != nil {
					return err
				}
				sum := sha256.Sum256(cfgBytes)
				r, err := release.Compose(ctx, pool, release.Spec{Query: q, Seed: *seed, Rounds: *rounds, Team: team,
					Attack: attackCfg, Embedder: embedder, Rule: release.SolvedRule,
					Run: "sha256:" + hex.EncodeToString(sum[:]), Screen: screenCfg, Videos: videosBy})
				if err != nil {
					if errors.Is(err, context.Canceled) || ctx.Err() != nil {
						return err
					}
					if errors.Is(err, release.ErrNotInPool) || errors.Is(err, release.ErrVersion) {
						return fmt.Errorf("%w: %v", errBadInput, err)
					}
					return err
				}
				if readers != nil && readers.unread > 0 {
					fmt.Fprintf(env.stderr, "vidscreen select: %s could not read %d of the %d items it re-read under %s; it abstains there (counted at chance)\n", fullVideoReader, readers.unread, readers.items, *videos)
				}
				if readers != nil && readers.uncaptioned > 0 {
					fmt.Fprintf(env.stderr, "vidscreen select: %s found no captions for %d of the %d items it re-read under %s; it abstains there (counted at chance)\n", captionsReader, readers.uncaptioned, readers.items, *videos)
				}
				exports, err := prepareExports(ctx, r, *exportLMMS, *exportVLM)
				if err != nil {
					return err
				}
				if err := r.Write(*out); err != nil {
					return err
				}
				if err := exports.write(ctx); err != nil {
					return err
				}
				res := selectSummary{Release: r.Name, Out: *out, Items: len(r.Items), Pool: len(pool.Candidates),
					Relaxations: len(r.Lockfile.Relaxations), Rounds: r.Gated.Rounds, Residual: r.Gated.Residual.Levels,
					Shortfall: r.Lockfile.Shortfall, LMMSEval: *exportLMMS, VLMEvalKit: *exportVLM}
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
		},
	}
}

// openScreen reads the screen of runDir from dir (RUN/screen when empty);
// when the default place holds none, it screens the run with the defaults
// of vidscreen screen and says so.
func openScreen(runDir, dir string, env *environment) (*screen.Screen, error) {
	explicit := dir != ""
	if !explicit {
		dir = filepath.Join(runDir, "screen")
	}
	s, err := screen.Read(dir)
	if err == nil {
		return s, nil
	}
	if explicit || !errors.Is(err, iofs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %v", errBadInput, err)
	}
	in, err := screen.Open(runDir)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) || errors.Is(err, screen.ErrOldRun) || errors.Is(err, completion.ErrUnfinished) {
			return nil, fmt.Errorf("%w: %v", errBadInput, err)
		}
		return nil, err
	}
	s, err = screen.Compute(in, screen.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadInput, err)
	}
	fmt.Fprintf(env.stderr, "vidscreen select: %s holds no screen: screening the run with the defaults of vidscreen screen (nothing written; run vidscreen screen %s to keep or configure it)\n", dir, runDir)
	return s, nil
}

// readSignificant reads, per benchmark, the attackers the run's cards find
// significantly above chance: a screened verdict the red-team gate carries
// over drops an item only there (Video-Index 5.1, as screening does).
func readSignificant(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v (a finished audit writes it last)", errBadInput, path, err)
	}
	var f struct {
		Cards []struct {
			Benchmark string `json:"benchmark"`
			Attackers []struct {
				Name        string `json:"name"`
				Significant bool   `json:"significant"`
			} `json:"attackers"`
		} `json:"cards"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errBadInput, path, err)
	}
	out := map[string][]string{}
	for _, c := range f.Cards {
		if c.Benchmark == "" {
			return nil, fmt.Errorf("%w: %s: a card without a benchmark", errBadInput, path)
		}
		out[c.Benchmark] = []string{}
		for _, a := range c.Attackers {
			if a.Significant {
				out[c.Benchmark] = append(out[c.Benchmark], a.Name)
			}
		}
	}
	return out, nil
}

// openSelectEmbedder opens the text_embed role of dir and checks that it is
// the model the audit embedded with (its name carries the files' hashes).
func openSelectEmbedder(dir string, device gpu.Spec, want string, env *environment) (textembed.TextEmbedder, func(), error) {
	if dir == "" {
		return nil, nil, fmt.Errorf("%w: the run embedded its texts with %s: pass --models DIR with that text_embed model, so that the red team embeds the selection alike", errBadInput, want)
	}
	dev, err := oneDevice(device)
	if err != nil {
		return nil, nil, err
	}
	m, err := models.LoadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	rt, err := models.NewRuntime(models.RuntimeOptions{Device: device, Log: env.stderr, Getenv: env.getenv})
	if err != nil {
		return nil, nil, fmt.Errorf("--models: %w", err)
	}
	tm, err := onnxembed.OpenModels(rt, m, dev)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --models: %v", errBadInput, err)
	}
	if tm.Embed.Name() != want {
		tm.Close()
		return nil, nil, fmt.Errorf("%w: --models: its text_embed is %s, but the run embedded with %s", errBadInput, tm.Embed.Name(), want)
	}
	return tm.Embed, func() { tm.Close() }, nil
}

// restoreItems reads the audit's item files, checks that each is one of the
// run's inputs (by content), and gives the pool's items what the screen
// does not carry.
func restoreItems(ctx context.Context, pool *release.Pool, files []string, cfg rundir.Config) error {
	items, digests, err := harness.ReadFSDigests(ctx, nil, files, harness.ReadOptions{})
	if err != nil {
		return fmt.Errorf("%w: --items: %v", errBadInput, err)
	}
	for _, d := range digests {
		found := false
		for _, in := range cfg.Items {
			if in.SHA256 == d.SHA256 {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%w: --items %s: not one of the files the run audited (its config.json lists them by content)", errBadInput, d.Name)
		}
	}
	if _, err := release.Restore(pool, items); err != nil {
		return fmt.Errorf("%w: --items: %v", errBadInput, err)
	}
	return nil
}
