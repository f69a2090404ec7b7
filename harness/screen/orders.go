package screen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/solve"
)

// runConfig is what screening reads of a run's config.json.
type runConfig struct {
	Seed uint64 `json:"seed"`
	// YesNo is what the audit did with bare yes/no items
	// (harness.YesNoSetAside, harness.YesNoKept; "" before it said).
	YesNo  string `json:"yes_no"`
	Videos *struct {
		VLMReader    string `json:"vlm_reader"`
		ScreenReader string `json:"screen_reader"`
	} `json:"videos"`
}

// readConfig reads dir's config.json; nil when there is none.
func readConfig(dir string) (*runConfig, error) {
	path := filepath.Join(dir, rundir.ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cfg := &runConfig{}
	if err := json.Unmarshal(b, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// readOrders reads, for each multi-order attacker the run has
// (attack.MultiOrder), its choices and gold margins on the permutation
// audit's first solve.Orders seeded option orders, permutations 1 to 4
// (order 0, the original, is items.parquet's verdict and not one of them:
// the authors' pool screen draws four random orders), from the run's cache
// (rundir.PermutationFile), so that the options-only and blind steps judge
// four seeded orders without asking the model again (Video-Index 5.1). It
// reads them in order up to the first the cache lacks (a run audited with
// --permutations 2 has two); an attacker with none gets none. One whose
// orders' files keep no margins (written before vidscreen kept them) gets
// its choices and no margins. The seed is config.json's.
func readOrders(dir string, rows []Row, attackers []Attacker, cfg *runConfig) (map[string][][]int32, map[string][][]float64, error) {
	out, margins := map[string][][]int32{}, map[string][][]float64{}
	if cfg == nil {
		return out, margins, nil
	}
	keys := make([]string, len(rows))
	for i := range rows {
		keys[i] = rows[i].Key()
	}
	for _, a := range attackers {
		if !isMultiOrder(a.Name) {
			continue
		}
		var orders [][]int32
		var ms [][]float64
		for o := 1; o <= solve.Orders; o++ {
			path := rundir.PermutationFile(dir, a.Name, cfg.Seed, o, keys)
			b, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				return nil, nil, err
			}
			choices, m, err := rundir.DecodePermutation(b, len(rows))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w (for the %d items of %s)", path, err, len(rows), rundir.ItemsParquet)
			}
			cs := make([]int32, len(choices))
			for i, c := range choices {
				if c < 0 || c >= len(rows[i].Options) {
					return nil, nil, fmt.Errorf("%s: choice %d of item %s/%s (entry %d) names no option of its %d", path, c, rows[i].Benchmark, rows[i].ID, i, len(rows[i].Options))
				}
				cs[i] = int32(c)
			}
			orders = append(orders, cs)
			ms = append(ms, m)
		}
		if len(orders) == 0 {
			continue
		}
		out[a.Name] = orders
		if !slices.ContainsFunc(ms, func(m []float64) bool { return m == nil }) {
			margins[a.Name] = ms
		}
	}
	return out, margins, nil
}
