package attack

import (
	"context"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/kernels"
)

// A Stream is one prequential pass over the pool: the items in the order in
// which they are answered. The answer for Items[i] may depend on the gold
// answers of Items[:i] only, never on its own or on later ones.
type Stream struct {
	Variant int             // which seeded order this is (0, 1, ...)
	Seed    uint64          // seed of this order, for attackers that draw
	Items   []*harness.Item // in answering order
	// Text holds unit embeddings of question+options, one row per item in
	// Items; Question holds unit embeddings of the question alone. Either may
	// be nil when no attacker of the run needs it.
	Text     *kernels.Matrix
	Question *kernels.Matrix
	// Progress, when set, is told how many more items have been answered.
	// Attackers whose pass is long call it as they go, so that the run's
	// progress moves during a long unit; the others need not (the run
	// counts what a unit did not report when it ends). It may be nil.
	Progress func(items int)
	// Visual holds, per item in Items, what the feature stage made of its
	// video; nil when no attacker of the run reads frames (see FrameNeeds).
	Visual []*Visual
	// Pool is every item of the run, for the cross-pool attackers
	// (CrossPool); nil for the others.
	Pool *Pool
	// Ask, when set, says per item of Items whether the lm_reader
	// attackers (HonoursAsk: the options-only, blind, retrieval, captions
	// and transcript readers) ask their
	// model about it: a shard of a split audit asks about its own items
	// only, and every shard asks about different ones. An item not asked
	// gets a seeded guess its caller must not keep. The rest of the stream
	// is still read: the retrieval reader's pairs come from every earlier
	// item of the benchmark, asked or not. Nil asks about every item.
	Ask []bool
}

// asks says whether the lm_reader attackers ask their model about item p.
func (s *Stream) asks(p int) bool { return s.Ask == nil || s.Ask[p] }

// answered reports n more items answered to s.Progress, if any.
func (s *Stream) answered(n int) {
	if s.Progress != nil && n > 0 {
		s.Progress(n)
	}
}

// A Prediction is an attacker's answer to one item.
type Prediction struct {
	// Choice is the chosen option index.
	Choice int
	// Scores holds one log-probability (or log-score) per option; the margin
	// log p(choice) - mean log p(others) is read from it.
	Scores []float64
	// Abstain is true when the attacker had nothing to go on and Choice is a
	// seeded guess.
	Abstain bool
	// Failure, when set, says the attacker could not be answered for this
	// item (letters.FailureServer: a served reader's server failed after its
	// retries): Choice is an abstention, the item fails with this reason and
	// the prediction is not stored, so a resumed run asks again.
	Failure string
	// Floored is true when a model reader's score for some option is the
	// floor solve.LogFloor, log(1e-6), not a log-probability the model
	// gave: a served reader's server left that letter out of its
	// top_logprobs (or, in generate mode, replied with another letter).
	// Its margin then rests on the authors' floor, which a user reading the
	// item's answer needs to know; stages.json counts such answers per
	// served role, and items.parquet flags them per item (<name>_floored).
	// It is stored with the prediction, so a resumed run keeps it.
	Floored bool
}

// An Attacker answers every item of a stream.
//
// Attackers are safe for concurrent use by several goroutines. Work that
// does not depend on the order (similarity searches, option features) is
// kept in the configuration's Cache, so the orders of a run share it whether
// they use one attacker or a fresh one each.
type Attacker interface {
	Name() string
	Level() harness.Level
	Attack(ctx context.Context, s *Stream) ([]Prediction, error)
}
