package world

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
}

// ItemTruth is one item's family and expected level.
type ItemTruth struct {
	ID        string         `json:"id"`
	Benchmark string         `json:"benchmark"`
	Family    string         `json:"family"`
	Expected  *harness.Level `json:"expected"`
}

// ReadTruth reads dir/truth.json.
func ReadTruth(dir string) (*Truth, error) {
	path := filepath.Join(dir, TruthFile)
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
