package release

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// A small release through a team that solves one planted item: the golden
// report shows the composition, a relaxation, both rounds and the residual.
func TestReportGolden(t *testing.T) {
	t.Parallel()
	cs := append(many("A", "t", 4, 5), many("B", "u", 2, 100)...)
	p := testPool(t, cs)
	team := &plantedTeam{planted: map[string]bool{"A-t-0": true}}
	res := &residualTeam{plantedTeam: team}
	r, err := Compose(context.Background(), p, Spec{Query: Query{Budget: 4}, Seed: 2, Rounds: 2, Team: res, Embedder: "test", Rule: "planted"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"report.golden.md", func(b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"report.golden.html", func(b *bytes.Buffer) error { return r.WriteHTML(b) }},
		{"lockfile.golden.json", func(b *bytes.Buffer) error { return r.WriteLockfile(b) }},
		{"items.golden.jsonl", func(b *bytes.Buffer) error { return r.WriteItems(b) }},
	} {
		var b bytes.Buffer
		if err := tt.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tt.file)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to write it)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file (go test -update rewrites it after a deliberate change):\n%s", tt.file, b.String())
		}
	}
}

// residualTeam adds residual figures to a plantedTeam's attack.
type residualTeam struct{ *plantedTeam }

func (t *residualTeam) Attack(ctx context.Context, p *Pool, picks []int) (*Attack, error) {
	a, err := t.plantedTeam.Attack(ctx, p, picks)
	if err != nil {
		return nil, err
	}
	solved := 0
	for _, s := range a.Solvers {
		if len(s) > 0 {
			solved++
		}
	}
	r := AttackerResidual{Name: "a", Level: p.Attackers[0].Level, Rerun: true, N: len(picks), Accuracy: float64(solved) / float64(len(picks)), Chance: 0.25, Solved: solved}
	r.Margin = round6(r.Accuracy - r.Chance)
	r.Significant = significant(r.Margin, r.Chance, r.N)
	a.Attackers = []AttackerResidual{r}
	a.Levels = residualLevels(a.Attackers)
	return a, nil
}

func TestGateStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := testPool(t, many("A", "t", 4, 5))
	if _, err := Gate(ctx, p, Query{Budget: 2}, 1, &plantedTeam{}, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled gate returned %v", err)
	}
}

// A release that is not shortcut-free says so at the top of its reports: a
// level still significant on the released items, or items the gate's last
// round still solved.
func TestReportWarnsWhenNotShortcutFree(t *testing.T) {
	t.Parallel()
	clean := []LevelResidual{{Level: harness.LevelOption, Eps: 0.01, Attacker: "a"}}
	tests := []struct {
		name   string
		levels []LevelResidual
		rounds []Round
		want   []string
	}{
		{"a clean release warns of nothing", clean, []Round{{Round: 1, Selected: 10, Solved: 2}, {Round: 2, Selected: 10}}, nil},
		{"a significant level is named", []LevelResidual{{Level: harness.LevelOption, Eps: 0.01, Attacker: "a"}, {Level: harness.LevelPool, Eps: 0.213, Attacker: "knn-vote", Significant: true}},
			[]Round{{Round: 1, Selected: 10}}, []string{"still significantly exploitable at pool (eps +21.3% by knn-vote)"}},
		{"items solved in the last round are counted", clean, []Round{{Round: 1, Selected: 10, Solved: 4}, {Round: 3, Selected: 10, Solved: 2}},
			[]string{"last round (3) still solved 2 of the 10 selected items"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Release{Gated: &Gated{Rounds: tt.rounds, Residual: &Attack{Levels: tt.levels}}}
			got := r.warnings()
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %q lacks %q", got[i], w)
				}
			}
		})
	}
}
