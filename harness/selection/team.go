package selection

import (
	"context"

	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// team is the red team of a selection with the models it opened: the
// run's attack configuration and seed, the model readers that re-read the
// selection (readers, nil when they carry their verdicts over), the
// retrieval-reader's lm_reader and the text embedder, each opened only
// when the run used it and the Spec names the models and videos it needs.
type team struct {
	*release.AttackTeam
	readers  *modelReaders
	embedder string // as the lockfile names it
	closers  []func()
}

// openTeam opens the red team for spec on the run cfg describes. On an
// error, what it opened is closed.
func openTeam(ctx context.Context, spec *Spec, cfg rundir.Config, env run.Env) (*team, error) {
	t := &team{AttackTeam: &release.AttackTeam{Config: cfg.Attack, Seed: spec.Seed, Workers: spec.Workers},
		embedder: "lexical, fitted on the selection"}
	if err := t.open(ctx, spec, cfg, env); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func (t *team) open(ctx context.Context, spec *Spec, cfg rundir.Config, env run.Env) error {
	readers, closeReaders, err := openModelReaders(ctx, spec.Models, spec.Videos, spec.Device, spec.Out, cfg, env)
	if err != nil {
		return err
	}
	t.closers = append(t.closers, closeReaders)
	if readers != nil {
		t.readers, t.Readers, t.Reader = readers, readers, readers.letters
	}
	if t.Reader == nil {
		lr, closeLetters, err := openLetters(ctx, spec.Models, spec.Device, spec.Out, cfg, env)
		if err != nil {
			return err
		}
		t.closers = append(t.closers, closeLetters)
		t.Reader = lr
	}
	if !isLexical(cfg.Embedder) {
		emb, closeEmb, err := openEmbedder(spec.Models, spec.Device, cfg.Embedder, env)
		if err != nil {
			return err
		}
		t.closers = append(t.closers, closeEmb)
		t.Embedder, t.embedder = emb, emb.Name()
	}
	return nil
}

// close releases the models in the reverse order of their opening.
func (t *team) close() {
	for i := len(t.closers) - 1; i >= 0; i-- {
		t.closers[i]()
	}
	t.closers = nil
}
