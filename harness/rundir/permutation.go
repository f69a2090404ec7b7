package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
)

// PermutationFile is where the run directory dir keeps the choices of
// attacker on option permutation o (0: the original order) of the items
// whose keys (harness.Item.Key, in the run's order) are given, under seed:
// a JSON object whose "choices" list the original index of each item's
// chosen option and whose "margins" list the gold option's margin on that
// order (PermutationRecord; DecodePermutation reads it, and the plain list
// of choices a run wrote before the margins were kept). Screening reads
// the first four orders of the options-only and blind readers from there
// (Video-Index 5.1: four seeded option orders, their mean margin).
func PermutationFile(dir, attacker string, seed uint64, o int, keys []string) string {
	return filepath.Join(dir, CacheDir, fmt.Sprintf("perm-%s-%d-%s.json", attacker, o, ContentKey(fmt.Sprintf("%s/%d/%d", attacker, seed, o), nil, keys)))
}

// A PermutationRecord is what PermutationFile holds of one reader on one
// option order: per item, the original index of the option it chose and
// the margin of the gold option, log p(gold) - mean log p(others) (null
// where the scores gave none). Screening reads the margins for the
// options-only and blind readers' mean margin over four orders
// (Video-Index 5.1; harness/solve.SolvesOrders).
type PermutationRecord struct {
	Choices []int      `json:"choices"`
	Margins []*float64 `json:"margins"`
}

// EncodePermutation writes rec as the content of a PermutationFile: one
// line of JSON.
func EncodePermutation(w io.Writer, rec *PermutationRecord) error {
	return json.NewEncoder(w).Encode(rec)
}

// DecodePermutation decodes the contents of a PermutationFile of n items:
// the choices and the margins (NaN where the file holds none for an item).
// A file written before the margins were kept is a JSON list of the
// choices alone: its margins are nil, absent, never zeros.
func DecodePermutation(b []byte, n int) (choices []int, margins []float64, err error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &choices); err != nil {
			return nil, nil, err
		}
		if len(choices) != n {
			return nil, nil, fmt.Errorf("%d choices for %d items", len(choices), n)
		}
		return choices, nil, nil
	}
	var rec PermutationRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, nil, err
	}
	if len(rec.Choices) != n {
		return nil, nil, fmt.Errorf("%d choices for %d items", len(rec.Choices), n)
	}
	if rec.Margins == nil {
		return rec.Choices, nil, nil
	}
	if len(rec.Margins) != n {
		return nil, nil, fmt.Errorf("%d margins for %d items", len(rec.Margins), n)
	}
	margins = make([]float64, n)
	for i, m := range rec.Margins {
		margins[i] = math.NaN()
		if m != nil {
			margins[i] = *m
		}
	}
	return rec.Choices, margins, nil
}
