// Package report renders a finished audit for people and for tools: the
// report cards as JSON (cards.json) and Markdown (cards.md), a self-contained
// HTML page with the level profiles and learning curves as inline SVG
// (index.html), and two Parquet tables, one row per item with every
// attacker's prediction and margin (items.parquet) and one row per
// near-duplicate pair (duplicates.parquet).
//
// The package only renders: it reads a Report and writes to an io.Writer.
// Where the bytes go, and that they arrive whole, is the run's business
// (harness/run writes each file atomically). Every writer is a pure function
// of the Report, so the same audit renders to the same bytes.
package report

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// An Attacker names one column group of the item table, in the order of
// attack.Attackers.
type Attacker struct {
	Name  string
	Level harness.Level
}

// A Report is everything an audit renders.
type Report struct {
	// Version is the vidscreen version that computed the report, and Config
	// the run's resolved configuration (inputs with their hashes, seed,
	// levels, embedder) as JSON; both head cards.json.
	Version   string
	Config    json.RawMessage
	Items     []*harness.Item
	Attackers []Attacker
	// Cards holds one card per benchmark, sorted by benchmark.
	Cards []metrics.Card
	// Scores holds one cell per (item, attacker), as metrics.ItemScores
	// returns them.
	Scores     []metrics.ItemScore
	Duplicates *dups.Result
	// Failures holds, per item, why its video gave no features ("" when it
	// did); nil when no video level ran.
	Failures []string
	// VideoSHA256 holds, per item, the SHA-256 (hex) of its video file as
	// the feature stage read it ("" where it could not be read); nil when
	// no video was read. items.parquet's video_sha256 column writes it for
	// the items whose video gave features: the content identity of the
	// screening funnel's duplicate steps (Video-Index 5.1, pool/dedup.py).
	VideoSHA256 []string
	// VideoIdentity holds, per item, the identity of its video that shared
	// videos were counted by (dups.VideoIdentity, joined by
	// dups.PerceptualIdentities where the run had an image tower;
	// Duplicates.VideosBy says which); nil when no video was read.
	// items.parquet's video_identity column writes it, so that screening
	// and the selector's one-per-video cap use the same identity.
	VideoIdentity []string
}

// cardsFile is the layout of cards.json.
type cardsFile struct {
	Vidscreen string          `json:"vidscreen"`
	Config    json.RawMessage `json:"config"`
	Cards     []metrics.Card  `json:"cards"`
}

// WriteCardsJSON writes cards.json: an indented object {"vidscreen":
// version, "config": the run's configuration, "cards": [...]}. It is a pure
// function of the report: nothing in it names a date, a host or a timing.
func (r *Report) WriteCardsJSON(w io.Writer) error {
	f := cardsFile{Vidscreen: r.Version, Config: r.Config, Cards: r.Cards}
	if f.Cards == nil {
		f.Cards = []metrics.Card{}
	}
	if f.Config == nil {
		f.Config = json.RawMessage("null")
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// columnName turns an attacker name into a column prefix that every
// dataframe library takes as is: lower case letters, digits and underscores.
func columnName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ColumnName is the prefix of an attacker's columns in items.parquet: its
// name in lower case with every other character turned to an underscore.
func ColumnName(attacker string) string { return columnName(attacker) }
