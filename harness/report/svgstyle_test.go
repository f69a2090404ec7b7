package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/metrics"
)

// No two curves of a chart share a colour and a dash pattern, up to three
// times the palette.
func TestSeriesStyleDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for k := 0; k < 3*len(palette); k++ {
		c, d := seriesStyle(k)
		key := c + "/" + d
		if j, ok := seen[key]; ok {
			t.Fatalf("curves %d and %d are both drawn %s", j, k, key)
		}
		seen[key] = k
	}
	if len(palette) < 12 {
		t.Errorf("%d colours: fewer than a card's dozen prequential attackers", len(palette))
	}
}

func TestLabelLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"copy", 10, []string{"copy"}},
		{"retrieval-reader-xpool", 17, []string{"retrieval-reader-", "xpool"}},
		{"retrieval-reader-xpool", 12, []string{"retrieval-", "reader-xpool"}},
		{"shuffled-frames-screen-reader", 8, []string{"shuffled-", "frames-screen-reader"}},
		{"nohyphenatallhere", 5, []string{"nohyphenatallhere"}},
	}
	for _, tt := range tests {
		got := labelLines(tt.name, tt.n)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("labelLines(%q, %d) = %q, want %q", tt.name, tt.n, got, tt.want)
		}
		if strings.Join(got, "") != tt.name {
			t.Errorf("labelLines(%q) loses text: %q", tt.name, got)
		}
	}
}

// Every curve has its legend entry, in its own stroke, and every bar
// colour of the level profile is in its legend; no attacker name is cut.
func TestChartLegends(t *testing.T) {
	t.Parallel()
	c := metrics.Card{Benchmark: "B", Chance: 0.25, Significance: 0.1}
	for k := 0; k < 10; k++ {
		c.Attackers = append(c.Attackers, metrics.AttackerResult{Name: fmt.Sprintf("attacker-with-a-long-name-%d", k), LearningCurve: []float64{0.25, 0.3, 0.35}})
	}
	svg, ok := learningCurvesSVG(c)
	if !ok {
		t.Fatal("no learning curves drawn")
	}
	for k, a := range c.Attackers {
		colour, _ := seriesStyle(k)
		if !strings.Contains(svg, `stroke="`+colour+`" stroke-width="3"`) || !strings.Contains(svg, ">"+a.Name+"</text>") {
			t.Errorf("curve %d (%s, %s) has no legend entry", k, a.Name, colour)
		}
	}
	c.Levels.Option = &metrics.LevelResult{Eps: 0.2, Attacker: "shuffled-frames-screen-reader", Significant: true}
	c.Levels.Text = &metrics.LevelResult{Eps: 0.05, Attacker: "question-match"}
	p := levelProfileSVG(c)
	for _, want := range []string{colourSignificant, colourNotSignificant, "significant (exact test, Holm)", "not significant"} {
		if !strings.Contains(p, want) {
			t.Errorf("level profile lacks %q in its legend", want)
		}
	}
	if strings.Contains(p, "…") {
		t.Error("the level profile cuts a label")
	}
}
