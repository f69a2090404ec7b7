package report

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// Charts are drawn as inline SVG by hand so that index.html needs no script
// and no external asset: a reader opens the file anywhere, offline.

const (
	chartW, chartH           = 480, 260
	padL, padR, padT, padB   = 56, 16, 16, 40
	plotW, plotH             = chartW - padL - padR, chartH - padT - padB
	colourSignificant        = "#c0392b"
	colourNotSignificant     = "#95a5a6"
	colourReference          = "#2c3e50"
	colourSignificanceThresh = "#7f8c8d"
)

// palette colours the learning curves (Okabe and Ito's colour-blind safe
// set, "Color Universal Design", 2008), less its yellow (#F0E442), whose
// contrast on white is too low for a thin line.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"}

// axis maps [lo, hi] onto the plot's vertical extent.
type axis struct{ lo, hi float64 }

func (a axis) y(v float64) float64 { return padT + plotH*(a.hi-v)/(a.hi-a.lo) }

// niceAxis widens [lo, hi] to multiples of a round step and returns the ticks.
func niceAxis(lo, hi float64) (axis, []float64) {
	if hi-lo < 1e-9 {
		hi = lo + 0.1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	a := axis{math.Floor(lo/step) * step, math.Ceil(hi/step) * step}
	var ticks []float64
	for t := a.lo; t <= a.hi+step/2; t += step {
		ticks = append(ticks, math.Round(t/step)*step)
	}
	return a, ticks
}

// tickLabel writes tick t in percent with as many decimals as the grid's
// step needs: a 2.5% grid reads 17.5%, 20.0%, 22.5%, not 18%, 20%, 22%.
func tickLabel(t float64, ticks []float64) string {
	decimals := 0
	if len(ticks) > 1 {
		step := 100 * (ticks[1] - ticks[0])
		for decimals < 3 && math.Abs(step-math.Round(step)) > 1e-6 {
			step *= 10
			decimals++
		}
	}
	return fmt.Sprintf("%.*f%%", decimals, 100*t)
}

// legendW is the extra width on the right of a chart with a legend.
const legendW = 130

func svgOpen(b *strings.Builder, width int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, width, chartH, width, chartH, html.EscapeString(title))
	fmt.Fprintf(b, `<title>%s</title>`, html.EscapeString(title))
}

func yAxis(b *strings.Builder, a axis, ticks []float64, label string) {
	for _, t := range ticks {
		y := a.y(t)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, padL, padL+plotW, y, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end" dominant-baseline="middle">%s</text>`, padL-6, y, html.EscapeString(tickLabel(t, ticks)))
	}
	fmt.Fprintf(b, `<text x="14" y="%d" font-size="11" transform="rotate(-90 14 %d)" text-anchor="middle">%s</text>`, padT+plotH/2, padT+plotH/2, html.EscapeString(label))
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`, padL, padL, padT, padT+plotH)
}

// hline draws a dashed line at v across the plot with its label in the
// right margin (labelW wide), beside the line's end, where no bar or curve
// can cover it; two labels closer than a line of text are moved apart.
func hline(b *strings.Builder, a axis, v float64, colour, label string, taken *[]float64) {
	y := a.y(v)
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="5 4" stroke-width="1.5"/>`, padL, padL+plotW, y, y, colour)
	ly := y + 4
	for _, t := range *taken {
		if math.Abs(ly-t) < 12 {
			ly = t + 12
		}
	}
	*taken = append(*taken, ly)
	fmt.Fprintf(b, `<text x="%d" y="%.1f" font-size="11" fill="%s">%s</text>`, padL+plotW+6, ly, colour, html.EscapeString(label))
}

// labelW is the right margin of a chart with line labels.
const labelW = 96

// levelProfileSVG draws eps per level as bars, with s* - c (when there is a
// reference) and the significance threshold as dashed lines: a level whose
// bar reaches the s* - c line breaks the benchmark (Video-Index, figure 1).
func levelProfileSVG(c metrics.Card) string {
	type bar struct {
		name string
		l    *metrics.LevelResult
	}
	var bars []bar
	for _, l := range harness.Levels() {
		if r := c.Levels.At(l); r != nil {
			bars = append(bars, bar{l.String(), r})
		}
	}
	lo, hi := 0.0, c.Significance
	for _, x := range bars {
		lo, hi = math.Min(lo, x.l.Eps), math.Max(hi, x.l.Eps)
	}
	var gap float64
	if c.ReferenceAccuracy != nil {
		gap = *c.ReferenceAccuracy - c.Chance
		lo, hi = math.Min(lo, gap), math.Max(hi, gap)
	}
	a, ticks := niceAxis(lo, hi*1.05)
	var b strings.Builder
	svgOpen(&b, chartW+labelW, "Level profile of "+c.Benchmark+": exploitability per level")
	yAxis(&b, a, ticks, "eps (margin over chance)")
	slot := float64(plotW) / float64(max(len(bars), 1))
	zero := a.y(0)
	for i, x := range bars {
		x0 := float64(padL) + slot*float64(i) + slot*0.2
		y := a.y(x.l.Eps)
		top, h := math.Min(y, zero), math.Abs(zero-y)
		colour := colourNotSignificant
		if x.l.Significant {
			colour = colourSignificant
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: eps %+.1f%% by %s</title></rect>`,
			x0, top, slot*0.6, h, colour, x.name, 100*x.l.Eps, html.EscapeString(x.l.Attacker))
		labelY := top - 4
		if x.l.Eps < 0 {
			labelY = top + h + 12
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%+.1f%%</text>`, x0+slot*0.3, labelY, 100*x.l.Eps)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="12" text-anchor="middle">%s</text>`, x0+slot*0.3, padT+plotH+16, x.name)
		// The attacker's name fits its slot (about 5.5 px a character at
		// this size) or is cut, whole in the bar's tooltip: neighbouring
		// names never run into each other.
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="#555"><title>%s</title>%s</text>`, x0+slot*0.3, padT+plotH+30,
			html.EscapeString(x.l.Attacker), html.EscapeString(cut(x.l.Attacker, int(slot/5.5))))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#333"/>`, padL, padL+plotW, zero, zero)
	var taken []float64
	hline(&b, a, c.Significance, colourSignificanceThresh, "significance", &taken)
	if c.ReferenceAccuracy != nil {
		hline(&b, a, gap, colourReference, "s* − c", &taken)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// A series is one learning curve.
type series struct {
	name  string
	curve []float64
}

// learningCurvesSVG draws the accuracy of each prequential attacker per
// tenth of its orders' positions, against chance: a pool attacker that
// learns a shortcut climbs as the pool fills.
func learningCurvesSVG(c metrics.Card) (string, bool) {
	var ss []series
	for _, a := range c.Attackers {
		if len(a.LearningCurve) > 1 {
			ss = append(ss, series{a.Name, a.LearningCurve})
		}
	}
	if len(ss) == 0 {
		return "", false
	}
	lo, hi := c.Chance, c.Chance
	for _, s := range ss {
		for _, v := range s.curve {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	a, ticks := niceAxis(math.Max(0, lo-0.02), math.Min(1, hi+0.02))
	var b strings.Builder
	svgOpen(&b, chartW+labelW+legendW, "Learning curves of "+c.Benchmark)
	yAxis(&b, a, ticks, "accuracy")
	n := len(ss[0].curve)
	x := func(i, n int) float64 { return float64(padL) + float64(plotW)*(float64(i)+0.5)/float64(n) }
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>`, x(i, n), padT+plotH+16, (i+1)*100/n)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle">%% of the order answered</text>`, padL+plotW/2, padT+plotH+32)
	var taken []float64
	hline(&b, a, c.Chance, colourSignificanceThresh, "chance", &taken)
	for k, s := range ss {
		colour := palette[k%len(palette)]
		pts := make([]string, len(s.curve))
		for i, v := range s.curve {
			pts[i] = fmt.Sprintf("%.1f,%.1f", x(i, len(s.curve)), a.y(v))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"><title>%s</title></polyline>`, strings.Join(pts, " "), colour, html.EscapeString(s.name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>`,
			chartW+labelW, padT+4+k*14, colour, chartW+labelW+14, padT+13+k*14, html.EscapeString(s.name))
	}
	b.WriteString(`</svg>`)
	return b.String(), true
}

// cut shortens s to at most n runes, ending it with "…" when cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 2 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}
