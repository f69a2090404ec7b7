// Package truth holds what a world planted: its families, the lowest level
// of the attack pyramid expected to solve each, truth.json, and the judging
// of an audit's cards against them (the audit of the auditor). It is apart
// from package world, which renders, so that reports can judge cards
// without linking the renderer and the encoder.
package truth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vidscreen/vidscreen/harness"
)

// Truth is truth.json: what was planted where. An audit is judged against
// it by Evaluate.
type Truth struct {
	// Renderer names the version of the renderer that wrote the world.
	Renderer string        `json:"renderer"`
	Seed     uint64        `json:"seed"`
	Videos   int           `json:"videos"`
	Families []FamilyTruth `json:"families"`
	Items    []ItemTruth   `json:"items"`
}

// FamilyTruth is one family: its benchmark name in items.jsonl, the lowest
// level expected to solve it (null: none should), what was planted, and how
// many videos and items it has.
type FamilyTruth struct {
	Name      string         `json:"name"`
	Benchmark string         `json:"benchmark"`
	Expected  *harness.Level `json:"expected"`
	Shortcut  string         `json:"shortcut"`
	Videos    int            `json:"videos"`
	Items     int            `json:"items"`
	// YesNoItems counts the family's items whose options are a bare
	// yes/no pair (harness.IsYesNo): an audit sets them aside unless run
	// with --keep-yesno (the copy and siblings families are all yes/no).
	YesNoItems int `json:"yes_no_items,omitempty"`
}

// ItemTruth is one item's family and expected level.
type ItemTruth struct {
	ID        string         `json:"id"`
	Benchmark string         `json:"benchmark"`
	Family    string         `json:"family"`
	Expected  *harness.Level `json:"expected"`
	// YesNo marks an item whose options are a bare yes/no pair
	// (harness.IsYesNo), which an audit sets aside by default.
	YesNo bool `json:"yes_no,omitempty"`
}

// File is truth.json's name in a world directory.
const File = "truth.json"

// BenchmarkPrefix starts every world benchmark's name: world-FAMILY.
const BenchmarkPrefix = "world-"

// ErrNoTruth is returned by Read for a directory without truth.json.
var ErrNoTruth = errors.New("no truth.json: not a world directory (make one with vidscreen world)")

// A Family is one kind of item whose shortcut is known.
type Family struct {
	Name string
	// Expected is the lowest level expected to solve the family's items;
	// nil when no level should.
	Expected *harness.Level
	// Shortcut says what was planted.
	Shortcut string
}

// Benchmark is the family's benchmark name in items.jsonl.
func (f Family) Benchmark() string { return BenchmarkPrefix + f.Name }

func level(l harness.Level) *harness.Level { return &l }

// Families lists the world's families in the order reports print them.
func Families() []Family {
	return []Family{
		{Name: "option-artifact", Expected: level(harness.LevelOption),
			Shortcut: "the correct option is the only long, specific one; the others are two-word stock phrases"},
		{Name: "text-leak", Expected: level(harness.LevelText),
			Shortcut: "the question names the answer (\"What colour is the pink square?\")"},
		{Name: "copy", Expected: level(harness.LevelPool),
			Shortcut: "templated duplicates: every video of the family shows the same three objects, so each yes/no question template (\"Is the square pink?\") has one answer, repeated"},
		{Name: "siblings", Expected: level(harness.LevelPool),
			Shortcut: "paired yes/no questions on one video: \"Is there a pink square?\" (yes) beside \"Is there a grey square?\" (no)"},
		{Name: "single-frame", Expected: level(harness.LevelFrame),
			Shortcut: "the property asked about (an object's colour or shape) holds in every frame, the centre one included"},
		{Name: "some-frames", Expected: level(harness.LevelOrder),
			Shortcut: "a small object shows for a stretch away from the centre frame, beside two larger ones that captions name first; any set of frames that includes that stretch, in any order, answers it"},
		{Name: "window", Expected: level(harness.LevelOrder),
			Shortcut: "a small object shows through the whole video except around its centre: every tenth of the video answers it, the centre frame does not"},
		{Name: "order", Expected: nil,
			Shortcut: "none: which of two objects, shown equally long and never together, came first or last; only frame order answers it"},
		{Name: "clean", Expected: nil,
			Shortcut: "none: counting background changes or objects over the whole video"},
		{Name: "audio", Expected: nil,
			Shortcut: "the soundtrack names the answer (a tone per colour word) and no frame shows it: no level of the pyramid answers it, the Video-Oasis audio transcript test (transcript-match, transcript-reader) does"},
	}
}

// Read reads dir/truth.json.
func Read(dir string) (*Truth, error) {
	path := filepath.Join(dir, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoTruth)
	}
	if err != nil {
		return nil, err
	}
	var t Truth
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(t.Families) == 0 {
		return nil, fmt.Errorf("%s: no families", path)
	}
	return &t, nil
}
