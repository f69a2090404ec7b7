package selection

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/vidscreen/vidscreen/harness"
)

// readSignificant reads, per benchmark, the attackers the run's cards find
// significantly above chance: a screened verdict the red-team gate carries
// over drops an item only there (Video-Index 5.1, as screening does).
func readSignificant(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v (a finished audit writes it last)", harness.ErrBadInput, path, err)
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
		return nil, fmt.Errorf("%w: %s: %v", harness.ErrBadInput, path, err)
	}
	out := map[string][]string{}
	for _, c := range f.Cards {
		if c.Benchmark == "" {
			return nil, fmt.Errorf("%w: %s: a card without a benchmark", harness.ErrBadInput, path)
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
