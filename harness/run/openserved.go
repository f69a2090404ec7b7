package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/served"
)

// servedConfig is the client configuration of a served manifest entry of
// role (entry k, 0 the first): served.ConfigFor, with the run's response
// store and the answer rules of harness/answer for a generated reply (a
// server without log-probabilities), as outside models' predictions are
// read. An API key variable that is not set is bad input.
func servedConfig(m *models.Manifest, role models.Role, k int, spec models.RoleSpec, store *served.Store, env Env) (served.Config, error) {
	cfg, err := served.ConfigFor(m, role, k, spec, env.Getenv)
	if err != nil {
		return cfg, fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	cfg.Store, cfg.ParseReply = store, answer.Choice
	return cfg, nil
}

// replicaCheckTimeout bounds the ask of every replica's /v1/models when
// the run opens its models: a replica that has not answered by then is
// left to the run, which takes it out of service while it fails.
const replicaCheckTimeout = 10 * time.Second

// checkReplicaModels asks every replica of every served entry with
// several servers what its /v1/models lists (served.CheckReplicas) and
// refuses, as bad input naming models.json and the field, a replica that
// serves another model: its answers would be another reader's, mixed into
// the role's by whichever requests it happened to get.
func checkReplicaModels(ctx context.Context, m *models.Manifest, env Env) error {
	ctx, cancel := context.WithTimeout(ctx, replicaCheckTimeout)
	defer cancel()
	for _, role := range append(append([]models.Role(nil), models.Roles...), models.OptionalRoles...) {
		es := m.Entries(role)
		for k, spec := range es {
			if len(spec.Servers) < 2 {
				continue
			}
			cfg, err := served.ConfigFor(m, role, k, spec, env.Getenv)
			if err != nil {
				continue // an unset key: servedConfig says so when the role is opened
			}
			if err := served.CheckReplicas(ctx, cfg); errors.Is(err, served.ErrReplicaModel) {
				field := "roles." + string(role)
				if len(es) > 1 {
					field += fmt.Sprintf("[%d]", k)
				}
				return fmt.Errorf("%w: --models: %s: %s.%v", harness.ErrBadInput, filepath.Join(m.Dir, models.ManifestFile), field, strings.TrimPrefix(err.Error(), served.ErrReplicaModel.Error()+": "))
			}
		}
	}
	return nil
}

// servedReader is a served role the audit opened: its counts.
type servedReader interface{ Stats() *served.Stats }

// servedModesOf says, for the cards, how each served role's answers were
// read so far (Options.Served).
func servedModesOf(rs []servedReader) func() []metrics.ServedReader {
	return func() []metrics.ServedReader {
		out := make([]metrics.ServedReader, len(rs))
		for k, r := range rs {
			s := r.Stats().Snapshot()
			out[k] = metrics.ServedReader{Role: s.Role, Model: s.Model, Mode: s.Mode, Prefill: s.Prefill, ChatTemplateKwargs: s.ChatTemplateKwargs}
		}
		return out
	}
}

// servedRefused returns the error of the first served role that answered
// none of the requests it was sent (exit status 1, naming its server and
// its message), nil when every one answered something.
func servedRefused(rs []servedReader) error {
	for _, r := range rs {
		if err := r.Stats().Refused(true); err != nil {
			return err
		}
	}
	return nil
}

// ServedStage is one served role's line in stages.json: what it asked
// its server and how fast, and per server ("endpoints": each replica of
// models.json's servers) the requests sent, the failures that took it out
// of service for a while, and the replies.
type ServedStage struct {
	served.StatsSnapshot
	RequestsPerSecond float64 `json:"requests_per_second"`
	PrefixShare       float64 `json:"prefix_share"`
}

// servedLines are the served roles' counts for stages.json's "served"
// (timings, not compared between runs); rep hears the same, a line each,
// and a warning for each role that refitted prompts (fewer frames than
// asked: served.StatsSnapshot.RefitWarning, with the count and the fix).
func servedLines(rs []servedReader, rep interface {
	Note(string, ...any)
	Warn(string, ...any)
}) []ServedStage {
	var lines []ServedStage
	for _, r := range rs {
		s := r.Stats().Snapshot()
		line := ServedStage{StatsSnapshot: s, RequestsPerSecond: s.RequestsPerSecond(), PrefixShare: s.PrefixShare()}
		lines = append(lines, line)
		rep.Note("served", "role", s.Role, "model", s.Model, "server", s.URL, "queries", s.Queries, "failed", s.Failed, "requests", s.Requests, "store_hits", s.StoreHits, "images", s.Images,
			"requests_per_s", fmt.Sprintf("%.1f", line.RequestsPerSecond), "prefix_share", fmt.Sprintf("%.3f", line.PrefixShare), "mode", s.Mode, "prefill", s.Prefill,
			"floored", s.Floored, "refitted", s.Refitted, "chat_template_kwargs", s.ChatTemplateKwargs, "frames", s.Frames)
		if len(s.Endpoints) > 1 {
			for _, e := range s.Endpoints {
				rep.Note("served replica", "role", s.Role, "server", e.URL, "requests", e.Requests, "failures", e.Failures, "answered", e.Answered)
			}
		}
		if w := s.RefitWarning(); w != "" {
			rep.Warn(w)
		}
	}
	return lines
}

// openServedVLM opens a served vlm_reader or screen_reader and its name.
func openServedVLM(m *models.Manifest, role models.Role, spec models.RoleSpec, store *served.Store, env Env) (*served.VLM, string, error) {
	cfg, err := servedConfig(m, role, 0, spec, store, env)
	if err != nil {
		return nil, "", err
	}
	r, err := served.NewVLM(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("%w: --models: %v", harness.ErrBadInput, err)
	}
	return r, served.NameWording(string(role), cfg.Server, cfg.Wording), nil
}

// ServedStoreFile is the served roles' response store inside a run's cache
// folder: every reply, appended before it is used, so a killed run resumed
// asks its servers nothing twice.
const ServedStoreFile = "served-replies.store"

// servedStore is the response store of the run in runDir (nil for none).
func servedStore(runDir string) *served.Store {
	if runDir == "" {
		return nil
	}
	return served.NewStore(filepath.Join(runDir, rundir.CacheDir, ServedStoreFile))
}
