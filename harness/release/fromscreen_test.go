package release

import (
	"context"
	"math"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/screen"
	"github.com/vidscreen/vidscreen/kernels"
)

func TestFromScreenKeepsWhatScreeningKeeps(t *testing.T) {
	t.Parallel()
	s := &screen.Screen{
		Attackers: []screen.Attacker{{Name: "copy", Level: "pool"}, {Name: "centre-frame", Level: "frame"}},
		Rows: []screen.Row{
			{ID: "1", Benchmark: "B", Video: "v1", Options: []string{"a", "b"}, Kept: true, Cluster: 0, ClusterSize: 2, HasFrame: true, Embedding: 0,
				Verdicts: []screen.Verdict{{Scored: true, Margin: 0.5}, {Scored: false, Margin: 0}}, Quality: []string{"letter_prefix"}},
			{ID: "2", Benchmark: "B", Video: "v2", Options: []string{"a", "b"}, Kept: false, Embedding: 1, HasFrame: true,
				Verdicts: []screen.Verdict{{Scored: true, Correct: true, Solved: true}, {}}},
			{ID: "3", Benchmark: "C", Video: "v3", Options: []string{"a", "b"}, Kept: true, Cluster: 0, ClusterSize: 2, HasFrame: true, Embedding: 2,
				Verdicts: []screen.Verdict{{Scored: true, Margin: -1}, {Scored: true, Margin: 0.2}}},
			{ID: "4", Benchmark: "C", Video: "v4", Options: []string{"a", "b"}, Kept: true, Cluster: 3, ClusterSize: 1, Embedding: 3,
				Verdicts: []screen.Verdict{{}, {}}},
		},
		Embeddings: screen.Embeddings{MeanFrame: &kernels.Matrix{Rows: 4, Cols: 2, Data: []float32{1, 0, 0, 1, 1, 0.01, 0, 0}}},
	}
	sig := map[string][]string{"B": {"centre-frame"}, "C": {"copy"}}
	p, err := FromScreen(context.Background(), s, map[string]string{"copy": "1"}, sig, DefaultSceneThreshold, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Candidates) != 3 || !p.Attackers[0].Pooled || p.Attackers[1].Pooled || p.Attackers[0].Version != "1" {
		t.Fatalf("pool of %d, attackers %+v", len(p.Candidates), p.Attackers)
	}
	c1, c3, c4 := p.Candidates[0], p.Candidates[1], p.Candidates[2]
	if c1.Scene == "" || c1.Scene != c3.Scene || c4.Scene != "" {
		t.Errorf("scenes %q %q %q: want v1 and v3 one scene, v4 (no frames) its own", c1.Scene, c3.Scene, c4.Scene)
	}
	if c1.Template != 0 || c1.TemplateSize != 2 || c4.Template != 3 {
		t.Error("the items lost their near-duplicate cluster")
	}
	// One (empty) question, two sources: two question templates.
	if c3.template() != c4.template() || c1.template() == c3.template() {
		t.Error("question templates are not counted per source")
	}
	if !math.IsNaN(c1.Verdicts[1].Margin) || c3.Verdicts[1].Margin != 0.2 {
		t.Errorf("verdicts %+v %+v: an unscored margin must be NaN", c1.Verdicts, c3.Verdicts)
	}
	// Significance is per benchmark: copy on C only, centre-frame on B only.
	if c1.Verdicts[0].Significant || !c1.Verdicts[1].Significant || !c3.Verdicts[0].Significant || c3.Verdicts[1].Significant {
		t.Errorf("significance %+v %+v: want copy on C, centre-frame on B", c1.Verdicts, c3.Verdicts)
	}
	if _, kept := optionOrder(c1.Item, 1); kept != "letter_prefix" {
		t.Error("the screen's quality flags did not reach the item")
	}
}

func TestRestoreGivesBackWhatTheScreenDropped(t *testing.T) {
	t.Parallel()
	p := testPool(t, many("A", "t", 2, 5))
	start := 1.5
	src := *p.Candidates[0].Item
	src.VideoPath, src.Start, src.Meta = "clips/a.mp4", &start, []byte(`{"k":1}`)
	other := *p.Candidates[1].Item
	n, err := Restore(p, []*harness.Item{&src, &other})
	if err != nil || n != 2 {
		t.Fatalf("restored %d: %v", n, err)
	}
	if c := p.Candidates[0].Item; c.VideoPath != "clips/a.mp4" || *c.Start != 1.5 || string(c.Meta) != `{"k":1}` {
		t.Errorf("restored %+v", c)
	}
	changed := other
	changed.Question = "another question?"
	if _, err := Restore(p, []*harness.Item{&changed}); err == nil {
		t.Error("an item with another question was taken for the screened one")
	}
}
