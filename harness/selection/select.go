package selection

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// Summary is what a selection reports: the release's name and size, the
// gate's rounds and residual, and where the exports went. vidscreen select
// prints it as JSON.
type Summary struct {
	Release     string                  `json:"release"`
	Out         string                  `json:"out"`
	Items       int                     `json:"items"`
	Pool        int                     `json:"pool"`
	Relaxations int                     `json:"relaxations"`
	Rounds      []release.Round         `json:"rounds"`
	Residual    []release.LevelResidual `json:"residual"`
	Shortfall   string                  `json:"shortfall,omitempty"`
	// Budget is the budget asked (0 for --hardest); GateProblems says,
	// one line each, what the red-team gate could not do (a level still
	// significant after the rounds, a budget larger than what it kept):
	// vidscreen select exits 3 on any unless --accept-residual.
	Budget       int      `json:"budget,omitempty"`
	GateProblems []string `json:"gate_problems,omitempty"`
	// LMMSEval and VLMEvalKit are where the exports went, when asked.
	LMMSEval   string `json:"lmms_eval,omitempty"`
	VLMEvalKit string `json:"vlmevalkit,omitempty"`
}

// Select builds the release spec asks for from its finished audit and
// writes it to spec.Out: it reads the run's config, screen and cards,
// builds the pool (placing its searches on spec.Device), opens the run's
// models the red team re-runs, composes and gates the selection
// (release.Compose), then writes the exports and the release. Its notes
// (the screen computed in passing, where the searches run, videos or
// items a reader could not read) go to env.Stderr.
//
// A Spec that asks the impossible is a *harness.UsageError; a run, screen, item
// file or models folder that is wrong, or a query the pool cannot serve,
// wraps harness.ErrBadInput; anything else (a cancellation, a failed
// write) is an error of the selection. Nothing is written unless the
// release and its exports are complete.
func Select(ctx context.Context, spec Spec, env run.Env) (*Summary, error) {
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cfgBytes, cfg, rec, err := readConfig(spec.Run)
	if err != nil {
		return nil, err
	}
	if err := inputsFromRun(&spec, cfg, env); err != nil {
		return nil, err
	}
	if rec.Vidscreen != harness.Version {
		fmt.Fprintf(env.Stderr, "vidscreen select: %s was audited by vidscreen %s, this is %s: what it lacks is done without (see the notes); rerun the audit to have it all\n", spec.Run, rec.Vidscreen, harness.Version)
	}
	s, err := openScreen(spec.Run, spec.Screen, rec.Hash(), env)
	if err != nil {
		return nil, err
	}
	excludeSuspects(s, spec.AdmitSuspects)
	sig, err := readSignificant(filepath.Join(spec.Run, rundir.CardsJSON))
	if err != nil {
		return nil, err
	}
	searches, err := placeSearches(&spec, env)
	if err != nil {
		return nil, err
	}
	defer searches.done()
	pool, err := release.FromScreen(ctx, s, cfg.AttackerVersions, sig, float32(spec.sceneThreshold()), searches.options())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
	}
	if len(spec.Items) == 0 && (spec.ExportLMMSEval != "" || spec.ExportVLMEvalKit != "") {
		// The screen keeps no item's video_path, start, end or meta: an
		// export without them finds no video that sits in a folder.
		return nil, harness.Usagef("the exports need the audit's item files, which the run does not record: pass --items FILE (the run read %s)", itemNames(cfg))
	}
	if len(spec.Items) > 0 {
		if err := restoreItems(ctx, pool, spec.Items, cfg); err != nil {
			return nil, err
		}
	}
	// A video root always comes with the item files (inputsFromRun), by
	// whose video_path the videos resolve.
	videosBy, err := identifyVideos(ctx, pool, spec.Videos, env)
	if err != nil {
		return nil, err
	}
	team, err := openTeam(ctx, &spec, cfg, env)
	if err != nil {
		return nil, err
	}
	defer team.close()
	team.Config.Joiner, team.Config.Searcher = searches.joiner, searches.searcher
	attackCfg, err := json.Marshal(cfg.Attack)
	if err != nil {
		return nil, err
	}
	screenCfg, err := json.Marshal(s.Options)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(cfgBytes)
	r, err := release.Compose(ctx, pool, release.Spec{Query: spec.query(), Seed: spec.Seed, Rounds: spec.Rounds, Team: team.AttackTeam,
		Attack: attackCfg, Embedder: team.embedder, Rule: release.SolvedRule,
		Run: "sha256:" + hex.EncodeToString(sum[:]), Screen: screenCfg, Videos: videosBy})
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return nil, err
		}
		if errors.Is(err, release.ErrNotInPool) || errors.Is(err, release.ErrVersion) {
			return nil, fmt.Errorf("%w: %v", harness.ErrBadInput, err)
		}
		return nil, err
	}
	team.readers.sayUnread(spec.Videos, env)
	exports, err := prepareExports(ctx, r, spec.ExportLMMSEval, spec.ExportVLMEvalKit)
	if err != nil {
		return nil, err
	}
	if err := r.Write(spec.Out); err != nil {
		return nil, err
	}
	if err := exports.write(ctx); err != nil {
		return nil, err
	}
	return &Summary{Release: r.Name, Out: spec.Out, Items: len(r.Items), Pool: len(pool.Candidates),
		Relaxations: len(r.Lockfile.Relaxations), Rounds: r.Gated.Rounds, Residual: r.Gated.Residual.Levels,
		Shortfall: r.Lockfile.Shortfall, LMMSEval: spec.ExportLMMSEval, VLMEvalKit: spec.ExportVLMEvalKit,
		Budget: spec.Budget, GateProblems: r.Gated.Outcome(r.Lockfile.Query).Problems()}, nil
}

// readConfig refuses a run whose outputs are not complete together (an
// audit killed while writing them) before anything is read from it, then
// reads its config.json: its bytes name the run in the lockfile. rec is
// the run's completion record (its Hash names the finished audit).
func readConfig(runDir string) ([]byte, rundir.Config, *completion.Record, error) {
	var cfg rundir.Config
	rec, err := completion.Check(runDir)
	if err != nil {
		return nil, cfg, nil, fmt.Errorf("%w: %s is not a finished audit: %v", harness.ErrBadInput, runDir, err)
	}
	b, err := os.ReadFile(filepath.Join(runDir, rundir.ConfigFile))
	if err != nil {
		return nil, cfg, nil, fmt.Errorf("%w: %s is not a finished audit: %v", harness.ErrBadInput, runDir, err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, cfg, nil, fmt.Errorf("%w: %s: %v", harness.ErrBadInput, filepath.Join(runDir, rundir.ConfigFile), err)
	}
	return b, cfg, rec, nil
}

// identifyVideos identifies the pool's videos by content when root is
// given (the audit's cards count shared videos so: Video-Index 4.5) and
// returns how the lockfile says they were identified.
func identifyVideos(ctx context.Context, pool *release.Pool, root string, env run.Env) (string, error) {
	if root == "" {
		return pool.VideosBy, nil
	}
	n, err := release.IdentifyVideos(ctx, pool, root)
	if err != nil {
		return "", err
	}
	if n.Read == 0 && n.Unread > 0 {
		return "", fmt.Errorf("%w: --videos %s: no video of the pool could be read (first: %s)", harness.ErrBadInput, root, n.FirstUnread)
	}
	if n.Unread > 0 {
		fmt.Fprintf(env.Stderr, "vidscreen select: %d of %d videos could not be read under %s and count by video id (first: %s)\n", n.Unread, n.Read+n.Unread, root, n.FirstUnread)
	}
	return fmt.Sprintf("content (SHA-256 of the video file under --videos): %d items read, %d by video id", n.Read, n.Unread), nil
}

// isLexical reports whether the run embedded its texts lexically, which the
// red team refits on the selection; any other embedder is a model it must
// open.
func isLexical(embedder string) bool { return strings.HasPrefix(embedder, "lexical") }

// itemNames lists the item files a run read, by name as config.json
// records them, for a message asking for --items.
func itemNames(cfg rundir.Config) string {
	names := make([]string, len(cfg.Items))
	for i, in := range cfg.Items {
		names[i] = in.Name
	}
	if len(names) == 0 {
		return "no item file"
	}
	return strings.Join(names, ", ")
}
