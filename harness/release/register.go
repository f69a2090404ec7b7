package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
)

// SelectorVersion names the rules of the selector, the gate and the
// registrar: the duration groups, the preference and round-robin orders,
// the relaxation ladder, the verdicts and the option shuffle. It goes into
// every lockfile; a change to any of those rules changes it.
const SelectorVersion = "vidscreen-select/5"

// A Lockfile says how a release was made, completely enough to make it
// again from the same pool: its SHA-256 (over the canonical JSON of every
// field but Release) names the release.
type Lockfile struct {
	Release   string `json:"release"`
	Vidscreen string `json:"vidscreen"`
	Selector  string `json:"selector"`
	Pool      struct {
		// Snapshot is Pool.Snapshot: every field of the pool that selection
		// read.
		Snapshot string `json:"snapshot"`
		Items    int    `json:"items"`
		// Run identifies the audit and screen the pool came from (their
		// configuration's hash), when the caller knows them.
		Run string `json:"run,omitempty"`
		// Screen is the screening's configuration, when the caller gives it.
		Screen json.RawMessage `json:"screen,omitempty"`
		// Videos says what identifies a video for the one-per-video cap:
		// its content (the SHA-256 of the file) or its video id.
		Videos string `json:"videos"`
	} `json:"pool"`
	Query Query  `json:"query"`
	Seed  uint64 `json:"seed"`
	// Attackers are the pool's attackers; Attack their configuration as the
	// audit resolved it (levels, orders, thresholds, learners, models).
	Attackers []Attacker      `json:"attackers"`
	Attack    json.RawMessage `json:"attack"`
	// RedTeam is how the gate attacked: at most MaxRounds rounds of drop
	// and refill, the embedder of the re-run attackers and the verdict rule;
	// Rerun names the attackers that attacked the selection again on the
	// released option order, Carried those whose screened verdicts were
	// carried over (Video-Index 5.2; issue 20.6).
	RedTeam struct {
		MaxRounds int      `json:"max_rounds"`
		Embedder  string   `json:"embedder"`
		Rule      string   `json:"rule"`
		Rerun     []string `json:"rerun"`
		Carried   []string `json:"carried_over"`
	} `json:"red_team"`
	Rounds      []Round      `json:"rounds"`
	Relaxations []Relaxation `json:"relaxations"`
	Shortfall   string       `json:"shortfall,omitempty"`
	// Items lists the released items, in release order, by source and id,
	// with the option order each was given.
	Items []LockedItem `json:"items"`
}

// A LockedItem is one released item: where it came from and the option
// order it was given (Order[j] is the source index of released option j).
type LockedItem struct {
	Source string `json:"source"`
	ID     string `json:"id"`
	Order  []int  `json:"order"`
}

// Name computes the release name from the lockfile: "vidscreen-" and the
// first 16 hex digits of the SHA-256 of its canonical JSON with Release
// empty. The encoding is canonical: struct fields in declaration order, map
// keys sorted (encoding/json sorts them), floats in their shortest form, and
// Attack compacted.
func (l *Lockfile) Name() (string, error) {
	c := *l
	c.Release = ""
	if len(c.Attack) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, c.Attack); err != nil {
			return "", fmt.Errorf("lockfile: attack configuration: %w", err)
		}
		c.Attack = b.Bytes()
	}
	if len(c.Pool.Screen) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, c.Pool.Screen); err != nil {
			return "", fmt.Errorf("lockfile: screen configuration: %w", err)
		}
		c.Pool.Screen = b.Bytes()
	}
	data, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("lockfile: %w", err)
	}
	sum := sha256.Sum256(data)
	return "vidscreen-" + hex.EncodeToString(sum[:8]), nil
}

// optionOrder is the seeded shuffle of one item's options: a Fisher-Yates
// shuffle drawn from a stream seeded by the release seed and the item's
// key. Items whose options refer to their places (letter prefixes such as
// "A. ...", meta options such as "all of the above") keep their order:
// shuffling them would make the text lie.
func optionOrder(it *harness.Item, seed uint64) (order []int, kept string) {
	order = make([]int, len(it.Options))
	for j := range order {
		order[j] = j
	}
	switch {
	case it.Quality.Has(harness.LetterPrefix):
		return order, "letter_prefix"
	case it.Quality.Has(harness.MetaOption):
		return order, "meta_option"
	}
	r := splitmix{s: rank(seed, "options", it.Key())}
	for j := len(order) - 1; j > 0; j-- {
		k := r.intn(j + 1)
		order[j], order[k] = order[k], order[j]
	}
	return order, ""
}

// releasedItem is it as released under name: benchmark the release, id
// "<source>/<id>", options in order, answer where the gold option went, and
// meta saying where it came from.
func releasedItem(it *harness.Item, name string, order []int, kept string) (*harness.Item, error) {
	out := *it
	out.Benchmark = name
	out.ID = it.Benchmark + "/" + it.ID
	out.Options = make([]string, len(order))
	for j, src := range order {
		out.Options[j] = it.Options[src]
		if src == it.Answer {
			out.Answer = j
		}
	}
	meta := struct {
		Source     string          `json:"source"`
		SourceID   string          `json:"source_id"`
		Order      []int           `json:"option_order"`
		Kept       string          `json:"option_order_kept,omitempty"`
		SourceMeta json.RawMessage `json:"source_meta,omitempty"`
	}{it.Benchmark, it.ID, order, kept, it.Meta}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("item %s/%s: meta: %w", it.Benchmark, it.ID, err)
	}
	out.Meta = b
	return &out, nil
}
