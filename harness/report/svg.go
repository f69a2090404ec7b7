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

// palette colours the learning curves: Okabe and Ito's colour-blind safe
// set ("Color Universal Design", 2008), less its yellow (#F0E442), whose
// contrast on white is too low for a thin line, then Paul Tol's muted
// scheme's darker members for the eighth curve on. A card has at most
// about a dozen prequential attackers (with --cross-pool); past the
// palette, curves repeat a colour with a dashed stroke (seriesStyle), so no
// two curves of a chart are drawn alike and each has its legend entry.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
	"#882255", "#44AA99", "#999933", "#332288", "#AA4499", "#117733"}

// seriesStyle is curve k's colour and dash pattern ("" for a solid line).
func seriesStyle(k int) (colour, dash string) {
	colour = palette[k%len(palette)]
	switch k / len(palette) {
	case 0:
		return colour, ""
	case 1:
		return colour, "6 3"
	default:
		return colour, "2 3"
	}
}

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
const legendW = 170

func svgOpen(b *strings.Builder, width int, title string) {
	svgOpenHeight(b, width, chartH, title)
}

// svgOpenHeight opens a chart height px tall: the plot keeps its place and
// the extra height below it holds two-line labels and a legend.
func svgOpenHeight(b *strings.Builder, width, height int, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, width, height, width, height, html.EscapeString(title))
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
	// Below the plot: the level, the attacker's name on up to two lines,
	// then the legend of the bars' two colours.
	height := chartH + 2*attackerLineH + legendH
	svgOpenHeight(&b, chartW+labelW, height, "Level profile of "+c.Benchmark+": exploitability per level")
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
		// The attacker's name is written whole: broken after a hyphen onto
		// a second line where it is wider than its slot (about 5.5 px a
		// character at this size), and a line still too wide is squeezed
		// to the slot (textLength), so neighbouring names never run into
		// each other and none is cut.
		for k, line := range labelLines(x.l.Attacker, int(slot/5.5)) {
			squeeze := ""
			if w := 5.5 * float64(len([]rune(line))); w > slot-4 {
				squeeze = fmt.Sprintf(` textLength="%.1f" lengthAdjust="spacingAndGlyphs"`, slot-4)
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="#555"%s><title>%s</title>%s</text>`, x0+slot*0.3, padT+plotH+30+k*attackerLineH,
				squeeze, html.EscapeString(x.l.Attacker), html.EscapeString(line))
		}
	}
	legendY := padT + plotH + 30 + 2*attackerLineH
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">significant (exact test, Holm)</text>`,
		padL, legendY, colourSignificant, padL+14, legendY+9)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">not significant</text>`,
		padL+210, legendY, colourNotSignificant, padL+224, legendY+9)
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
	height := max(chartH, padT+4+len(ss)*legendRowH+padB)
	svgOpenHeight(&b, chartW+labelW+legendW, height, "Learning curves of "+c.Benchmark)
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
		colour, dash := seriesStyle(k)
		pts := make([]string, len(s.curve))
		for i, v := range s.curve {
			pts[i] = fmt.Sprintf("%.1f,%.1f", x(i, len(s.curve)), a.y(v))
		}
		dashAttr := ""
		if dash != "" {
			dashAttr = fmt.Sprintf(` stroke-dasharray="%s"`, dash)
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s><title>%s</title></polyline>`, strings.Join(pts, " "), colour, dashAttr, html.EscapeString(s.name))
		// The legend's swatch is a short line in the curve's own stroke.
		ly := padT + 4 + k*legendRowH
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"%s/><text x="%d" y="%d" font-size="11">%s</text>`,
			chartW+labelW, chartW+labelW+16, ly+5, ly+5, colour, dashAttr, chartW+labelW+20, ly+9, html.EscapeString(s.name))
	}
	b.WriteString(`</svg>`)
	return b.String(), true
}

// Heights of the rows below a chart: one line of an attacker's name under
// its bar, the legend, and one legend entry of the learning curves.
const (
	attackerLineH = 12
	legendH       = 18
	legendRowH    = 14
)

// labelLines breaks name into at most two lines of about n runes, after a
// hyphen where one falls in the first line ("retrieval-" "reader-xpool"):
// the whole name is always written, never cut.
func labelLines(name string, n int) []string {
	r := []rune(name)
	if len(r) <= n || n < 1 {
		return []string{name}
	}
	at := -1
	for i, c := range r {
		if c == '-' && i+1 <= n && i+1 < len(r) {
			at = i + 1
		}
	}
	if at < 0 {
		for i, c := range r {
			if c == '-' && i+1 < len(r) {
				at = i + 1
				break
			}
		}
	}
	if at < 0 {
		return []string{name}
	}
	return []string{string(r[:at]), string(r[at:])}
}
