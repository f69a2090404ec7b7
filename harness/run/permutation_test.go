package run

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models/letters"
)

// countingReader is an lm_reader that favours the option whose text is
// longest (so that permuting the options moves its choice along with the
// text) and counts the prompts it scores.
type countingReader struct{ prompts *atomic.Int64 }

func (countingReader) Encode(p letters.Prompt) ([]int, error) {
	if p.Options < 2 {
		return nil, errors.New("no options")
	}
	return make([]int, len(p.Text)), nil
}

func (r countingReader) Score(_ context.Context, ps []letters.Prompt) ([][]float64, error) {
	r.prompts.Add(int64(len(ps)))
	out := make([][]float64, len(ps))
	for i, p := range ps {
		out[i] = make([]float64, p.Options)
		for _, line := range strings.Split(p.Text, "\n") {
			for j := range p.Options {
				if prefix := string(rune('A'+j)) + ". "; strings.HasPrefix(line, prefix) {
					out[i][j] = -1 / (1 + float64(len(line)))
				}
			}
		}
		z := 0.0
		for _, v := range out[i] {
			z += math.Exp(v)
		}
		for j := range out[i] {
			out[i][j] -= math.Log(z)
		}
	}
	return out, nil
}

// TestPermutationAuditIsStoredAndResumed runs the option and text levels
// with a reader, checks that each card holds its readers' permutation audit,
// then runs again on the same directory: nothing is asked of the reader
// (the predictions and the permutations' choices are stored) and every
// output is byte-identical.
func TestPermutationAuditIsStoredAndResumed(t *testing.T) {
	t.Parallel()
	items := realItems(t, 6)
	out := filepath.Join(t.TempDir(), "run")
	var n atomic.Int64
	opt := Options{Items: []string{items}, Out: out, Seed: 3, Levels: []harness.Level{harness.LevelOption, harness.LevelText},
		Reader: countingReader{&n}, ReaderName: "counting"}
	res := mustAudit(t, opt)
	if n.Load() == 0 {
		t.Fatal("the reader was never asked")
	}
	for _, c := range res.Cards {
		if c.YesNoOnly { // VideoHallucer: set aside, nothing asked
			continue
		}
		for _, r := range []string{"options-reader", "blind-reader"} {
			if p := c.Permutation[r]; p == nil || len(p.Accuracies) != 9 || p.N != c.N {
				t.Errorf("%s: permutation audit of %s: %+v", c.Benchmark, r, p)
			}
		}
	}
	first := map[string][]byte{}
	for _, name := range []string{rundir.CardsJSON, rundir.CardsMarkdown, rundir.ItemsParquet} {
		first[name], _ = os.ReadFile(filepath.Join(out, name))
	}
	n.Store(0)
	mustAudit(t, opt)
	if got := n.Load(); got != 0 {
		t.Errorf("the resumed run asked the reader %d prompts; want every answer from the run directory", got)
	}
	for name, b := range first {
		again, _ := os.ReadFile(filepath.Join(out, name))
		if !bytes.Equal(b, again) {
			t.Errorf("%s differs after the resumed run", name)
		}
	}
	// A damaged stored permutation is computed again, to the same figures.
	perms, _ := filepath.Glob(filepath.Join(out, rundir.CacheDir, "perm-*.json"))
	if len(perms) != 2*9 {
		t.Fatalf("%d stored permutations, want 2 readers x 9 orders", len(perms))
	}
	// Each stored order keeps every item's choice and its gold margin.
	for _, p := range perms {
		b, _ := os.ReadFile(p)
		choices, margins, err := rundir.DecodePermutation(b, res.Items)
		if err != nil || len(choices) != res.Items || len(margins) != res.Items {
			t.Fatalf("%s: %d choices, %d margins, %v", filepath.Base(p), len(choices), len(margins), err)
		}
		for i, m := range margins {
			if math.IsNaN(m) || math.IsInf(m, 0) {
				t.Errorf("%s: item %d has no margin", filepath.Base(p), i)
			}
		}
	}
	os.WriteFile(perms[0], []byte("[1, 2"), 0o644)
	mustAudit(t, opt)
	if n.Load() == 0 {
		t.Error("a damaged stored permutation was not computed again")
	}
	again, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if !bytes.Equal(first[rundir.CardsJSON], again) {
		t.Error("cards.json differs after recomputing a damaged permutation")
	}
}

// TestPermutationCountIsConfigured: Options.Permutations sets how many
// permutations the audit scores (the reader is asked for each), and a
// negative count turns the audit off: no card has a permutation and the
// reader answers each item once per reader.
func TestPermutationCountIsConfigured(t *testing.T) {
	t.Parallel()
	items := realItems(t, 6)
	asked := map[string]int64{}
	for _, tt := range []struct {
		name  string
		perms int
		want  int // accuracies on each card's permutation; 0: none
	}{
		{"default", 0, 9},
		{"two", 2, 3},
		{"off", -1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			var n atomic.Int64
			res := mustAudit(t, Options{Items: []string{items}, Out: out, Seed: 3, Levels: []harness.Level{harness.LevelOption, harness.LevelText},
				Reader: countingReader{&n}, ReaderName: "counting", Permutations: tt.perms})
			asked[tt.name] = n.Load()
			for _, c := range res.Cards {
				if c.YesNoOnly { // VideoHallucer: set aside, nothing asked
					continue
				}
				for _, r := range []string{"options-reader", "blind-reader"} {
					p := c.Permutation[r]
					if tt.want == 0 {
						if p != nil {
							t.Errorf("%s: the audit is off, yet %s has a permutation: %+v", c.Benchmark, r, p)
						}
						continue
					}
					if p == nil || len(p.Accuracies) != tt.want || p.Permutations != tt.want-1 {
						t.Errorf("%s: permutation audit of %s: %+v; want %d accuracies", c.Benchmark, r, p, tt.want)
					}
				}
			}
			perms, _ := filepath.Glob(filepath.Join(out, rundir.CacheDir, "perm-*.json"))
			if len(perms) != 2*tt.want {
				t.Errorf("%d stored permutations, want 2 readers x %d orders", len(perms), tt.want)
			}
		})
	}
	// Each permutation is one more prompt per item and reader.
	if !(0 < asked["off"] && asked["off"] < asked["two"] && asked["two"] < asked["default"]) {
		t.Errorf("prompts asked: off %d, two %d, default %d; want 0 < off < two < default", asked["off"], asked["two"], asked["default"])
	}
}
