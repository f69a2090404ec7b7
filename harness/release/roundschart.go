package release

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// The gate's rounds as an inline SVG chart for report.html (issue 33.1.2):
// per round, bars of the items selected, solved and dropped, and beside them
// the residual's largest margin over chance on that round's selection, a
// red dot where it was significant. On a large budget the bars show the
// gate draining the pool while the margin does not fall. Drawn by hand, as
// the cards' charts are (harness/report/svg.go), so the page needs no script.

const (
	roundsW, roundsH        = 640, 240
	roundsPadL, roundsPadR  = 52, 12
	roundsPadT, roundsPadB  = 28, 40
	roundsGap               = 48 // between the two panels
	colourSelected          = "#0072B2"
	colourSolved            = "#E69F00"
	colourDropped           = "#D55E00"
	colourRoundSignificant  = "#c0392b"
	colourRoundInsignficant = "#7f8c8d"
)

// roundsSVG draws rounds; "" when there is none.
func roundsSVG(rounds []Round) template.HTML {
	if len(rounds) == 0 {
		return ""
	}
	panelW := float64(roundsW-roundsPadL-roundsPadR-roundsGap) / 2
	plotH := float64(roundsH - roundsPadT - roundsPadB)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="100%%" style="max-width:%dpx" role="img" aria-label="the red-team gate's rounds">`, roundsW, roundsH, roundsW)
	// Left panel: items per round.
	top := 0
	for _, r := range rounds {
		top = max(top, r.Selected)
	}
	hi := float64(max(top, 1))
	x0 := float64(roundsPadL)
	y := func(v float64) float64 { return float64(roundsPadT) + plotH*(1-v/hi) }
	fmt.Fprintf(&b, `<text x="%g" y="16" font-size="12">items per round</text>`, x0)
	for _, t := range []float64{0, hi / 2, hi} {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" font-size="10" text-anchor="end">%d</text>`,
			x0, x0+panelW, y(t), y(t), x0-4, y(t)+3, int(math.Round(t)))
	}
	slot := panelW / float64(len(rounds))
	bar := slot / 4
	for k, r := range rounds {
		sx := x0 + float64(k)*slot + bar/2
		for j, v := range []struct {
			n      int
			colour string
		}{{r.Selected, colourSelected}, {r.Solved, colourSolved}, {r.Dropped, colourDropped}} {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>round %d: %d</title></rect>`,
				sx+float64(j)*bar, y(float64(v.n)), bar, y(0)-y(float64(v.n)), v.colour, r.Round, v.n)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%d</text>`, sx+1.5*bar, y(0)+12, r.Round)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" text-anchor="middle">round</text>`, x0+panelW/2, roundsH-14)
	// Legend, below the left panel.
	lx := x0
	for _, l := range []struct{ name, colour string }{{"selected", colourSelected}, {"solved", colourSolved}, {"dropped", colourDropped}} {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="10" height="10" fill="%s"/><text x="%.1f" y="%d" font-size="10">%s</text>`, lx, roundsH-10, l.colour, lx+13, roundsH-1, l.name)
		lx += 70
	}
	// Right panel: the largest residual margin per round.
	x1 := x0 + panelW + roundsGap
	worst := make([]LevelResidual, len(rounds))
	lo, top2 := 0.0, 0.05
	for k, r := range rounds {
		for i, l := range r.Levels {
			if i == 0 || l.Eps > worst[k].Eps {
				worst[k] = l
			}
		}
		lo, top2 = math.Min(lo, worst[k].Eps), math.Max(top2, worst[k].Eps)
	}
	y2 := func(v float64) float64 { return float64(roundsPadT) + plotH*(top2-v)/(top2-lo) }
	fmt.Fprintf(&b, `<text x="%g" y="16" font-size="12">largest residual margin over chance</text>`, x1)
	for _, t := range []float64{lo, 0, top2} {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" font-size="10" text-anchor="end">%+.1f%%</text>`,
			x1, x1+panelW, y2(t), y2(t), x1-4, y2(t)+3, 100*t)
	}
	var pts []string
	for k, w := range worst {
		px := x1 + (float64(k)+0.5)*slot
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", px, y2(w.Eps)))
		colour := colourRoundInsignficant
		sig := "not significant"
		if w.Significant {
			colour, sig = colourRoundSignificant, "significant"
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>round %d: %+.1f%% by %s at the %s level, %s</title></circle>`,
			px, y2(w.Eps), colour, rounds[k].Round, 100*w.Eps, template.HTMLEscapeString(w.Attacker), w.Level, sig)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%d</text>`, px, y2(lo)+12, rounds[k].Round)
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#555"/>`, strings.Join(pts, " "))
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" text-anchor="middle">round</text>`, x1+panelW/2, roundsH-14)
	lx = x1
	for _, l := range []struct{ name, colour string }{{"significant", colourRoundSignificant}, {"not significant", colourRoundInsignficant}} {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%d" r="4" fill="%s"/><text x="%.1f" y="%d" font-size="10">%s</text>`, lx+5, roundsH-5, l.colour, lx+13, roundsH-1, l.name)
		lx += 90
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
