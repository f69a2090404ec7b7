package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

func TestTickLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ticks []float64
		want  []string
	}{
		{[]float64{0.175, 0.2, 0.225, 0.25}, []string{"17.5%", "20.0%", "22.5%", "25.0%"}},
		{[]float64{0, 0.1, 0.2}, []string{"0%", "10%", "20%"}},
		{[]float64{0.01, 0.0125}, []string{"1.00%", "1.25%"}},
	}
	for _, tt := range tests {
		for i, tick := range tt.ticks {
			if got := tickLabel(tick, tt.ticks); got != tt.want[i] {
				t.Errorf("tickLabel(%v, %v) = %q, want %q", tick, tt.ticks, got, tt.want[i])
			}
		}
	}
}

func TestHiddenInTasks(t *testing.T) {
	t.Parallel()
	sig := func(eps float64) *metrics.LevelResult {
		return &metrics.LevelResult{Eps: eps, Attacker: "a", Significant: true}
	}
	ns := func(eps float64) *metrics.LevelResult { return &metrics.LevelResult{Eps: eps, Attacker: "a"} }
	tests := []struct {
		name string
		card metrics.Card
		want string
	}{
		{"a task significant where the benchmark is not is named", metrics.Card{
			Levels: metrics.Levels{Option: ns(0.02), Text: ns(0.03)},
			Tasks: []metrics.Breakdown{
				{Name: "a", Levels: metrics.Levels{Option: ns(0.01), Text: sig(0.38)}},
				{Name: "b", Levels: metrics.Levels{Option: ns(0.01), Text: sig(0.5)}},
				{Name: "c", Levels: metrics.Levels{Option: ns(0.01), Text: ns(0.1)}},
			}}, "2 tasks up to +50.0% (text)"},
		{"a task significant where the benchmark is too is not hidden", metrics.Card{
			Levels: metrics.Levels{Text: sig(0.2)},
			Tasks:  []metrics.Breakdown{{Name: "a", Levels: metrics.Levels{Text: sig(0.5)}}}}, ""},
		{"no tasks", metrics.Card{Levels: metrics.Levels{Text: ns(0.1)}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hiddenInTasks(tt.card); got != tt.want {
				t.Errorf("hiddenInTasks = %q, want %q", got, tt.want)
			}
		})
	}
}

// What a reader must not miss is marked on the page: an attacker that
// abstained on every item (its accuracy is chance by construction), and
// the reason a figure is missing said once per reason, not once per figure.
func TestHTMLMarksWhatTheTablesHide(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	r.Cards[0].Attackers[0].AbstainShare = 1
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, `<tr class="flag"><td>`+r.Cards[0].Attackers[0].Name+` <b>(abstained on every item)</b>`) {
		t.Errorf("the attacker that abstained on every item is not flagged")
	}
	for _, w := range []string{"<dt>abstained</dt>", "<dt>solved</dt>", "<dt>orders</dt>", "<dt>learns from pool</dt>"} {
		if !strings.Contains(page, w) {
			t.Errorf("the attackers' columns are not explained: no %s", w)
		}
	}
	if n := strings.Count(page, "needs a reference model"); n > len(r.Cards) {
		t.Errorf(`"needs a reference model" %d times for %d cards`, n, len(r.Cards))
	}
}

// Attackers' names under the bars of the level profile fit their slots,
// so that five levels won by long names do not run together, and are
// written whole: on two lines, a line too wide squeezed (textLength).
func TestLevelProfileNamesFitTheirSlots(t *testing.T) {
	t.Parallel()
	c := metrics.Card{Benchmark: "world-clean", Chance: 0.25, Significance: 0.2}
	for _, l := range harness.Levels() {
		c.Levels.Set(l, &metrics.LevelResult{Eps: 0.4, Attacker: "centre-frame-qa-with-a-long-name", Significant: true})
	}
	svg := levelProfileSVG(c)
	slot := float64(plotW) / float64(len(harness.Levels()))
	re := regexp.MustCompile(`<text [^>]*?(?: textLength="([0-9.]+)"[^>]*)?><title>[^<]*</title>([^<]*)</text>`)
	var lines []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		w := 5.5 * float64(len([]rune(m[2])))
		if m[1] != "" {
			if w, _ = strconv.ParseFloat(m[1], 64); w == 0 {
				t.Fatalf("textLength %q", m[1])
			}
		}
		if w > slot {
			t.Errorf("label %q is %.0f px wide in a %.0f px slot", m[2], w, slot)
		}
		lines = append(lines, m[2])
	}
	if got := strings.Join(lines[:2], ""); got != "centre-frame-qa-with-a-long-name" {
		t.Errorf("the first bar's label reads %q, not the whole name", got)
	}
	if !strings.Contains(svg, "<title>centre-frame-qa-with-a-long-name</title>") {
		t.Error("the whole name is not in the label's tooltip")
	}
}
