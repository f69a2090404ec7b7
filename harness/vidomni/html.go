package vidomni

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness/htmlpage"
)

// WriteHTML writes index.html: one self-contained page (inline CSS and
// SVG, no script, no external asset, as harness/report's cards) with the
// verifiers' scores, per verifier the complexity type x duration heat map
// of F1 (the paper's figure 16 as a grid), the verifier x caption-source
// heat map (figure 12) and the category recalls.
func (s *Scores) WriteHTML(w io.Writer) error {
	type verifierRow struct {
		Name                   string
		Judged, Missing, Pairs int
		Unparsed               int
		Precision, Recall, F1  string
		Heat                   template.HTML
	}
	type catRow struct {
		Name  string
		Cells []string
	}
	type ensRow struct {
		Key, Precision, Recall, F1, Self string
		Pairs                            int
	}
	var data struct {
		Summary    string
		Verifiers  []verifierRow
		Matrix     template.HTML
		Categories []string
		CatRows    []catRow
		Ensembles  []ensRow
		Unparsed   int
		Missing    int
		Warnings   []string
	}
	c := s.counts
	data.Summary = fmt.Sprintf("%s, %s (%d Incorrect, %d Unknown left out); %s without an Incorrect sentence: %s; %s with only Unknown sentences, left out. Duration brackets: %s.",
		plural(c.pairs, "pair"), plural(c.sentences, "sentence"), c.incorrect, c.unknown, plural(c.noIncorrect, "pair"), s.policyText(), plural(c.onlyUnknown, "pair"), s.bracketText())
	data.Unparsed = len(s.unparsed)
	data.Warnings = s.flagAllWarnings()
	for _, n := range s.names {
		v := s.Verifiers[n]
		data.Missing += v.Missing
		data.Verifiers = append(data.Verifiers, verifierRow{Name: n, Judged: s.pairsSeen[n], Missing: v.Missing, Pairs: v.Pairs, Unparsed: v.Unparsed,
			Precision: pct(v.Precision), Recall: pct(v.Recall), F1: pct(v.F1), Heat: template.HTML(s.typeDurationSVG(n))})
	}
	data.Matrix = template.HTML(s.matrixSVG())
	data.Categories = Categories
	for _, n := range s.names {
		row := catRow{Name: n}
		for _, cat := range Categories {
			if r, ok := s.ByCategory[n][cat]; ok {
				row.Cells = append(row.Cells, fmt.Sprintf("%s (%d)", pct(r.Recall), r.Sentences))
			} else {
				row.Cells = append(row.Cells, "-")
			}
		}
		data.CatRows = append(data.CatRows, row)
	}
	for _, key := range sortedKeys(s.Ensembles) {
		e := s.Ensembles[key]
		var gains []string
		for _, m := range sortedKeys(e.Self) {
			g := e.Self[m]
			gains = append(gains, fmt.Sprintf("%s: %s → %s", m, pct(g.SelfF1), pct(g.EnsembleF1)))
		}
		data.Ensembles = append(data.Ensembles, ensRow{Key: key, Pairs: e.Pairs, Precision: pct(e.Precision), Recall: pct(e.Recall), F1: pct(e.F1), Self: strings.Join(gains, "; ")})
	}
	return page.Execute(w, data)
}

var page = htmlpage.New("index", nil, `{{define "title"}}vidscreen vidomni{{end}}{{define "body"}}<h1>VidOmni-Bench sentence-wise verification</h1>
<p>Incorrect sentences are the positive class; precision, recall and F1 are computed per video-caption pair and averaged over pairs (VidOmni-Bench, equation 2), in percent. {{.Summary}}</p>
{{range .Warnings}}<p class="warn">{{.}}</p>
{{end}}
<table>
<tr><th>verifier</th><th>pairs judged</th><th>pairs missing</th><th>pairs scored</th><th>precision</th><th>recall</th><th>F1</th><th>unparsed replies</th></tr>
{{range .Verifiers}}<tr><td>{{.Name}}</td><td>{{.Judged}}</td><td>{{.Missing}}</td><td>{{.Pairs}}</td><td>{{.Precision}}</td><td>{{.Recall}}</td><td>{{.F1}}</td><td>{{.Unparsed}}</td></tr>
{{end}}</table>
{{if .Missing}}<p>Pairs missing: labelled pairs a verifier gave no verdict on (--allow-missing); each is scored 0, its Incorrect sentences missed.</p>{{end}}
{{if .Unparsed}}<p>Replies that could not be parsed: {{.Unparsed}}; each scores 0 for its pair (scores.md lists them).</p>{{end}}
<h2>F1 by complexity type and duration</h2>
<div class="charts">
{{range .Verifiers}}<figure><h3>{{.Name}}</h3>{{.Heat}}<figcaption>{{.Name}}: F1 per complexity type and duration bracket; the number under each value is the pairs scored, an empty cell has none.</figcaption></figure>
{{end}}</div>
<h2>Verifier x caption source</h2>
<div class="charts"><figure>{{.Matrix}}<figcaption>F1 of each verifier (rows) on the captions of each source (columns); outlined cells are self-verification.</figcaption></figure></div>
<h2>Recall by error category</h2>
<table>
<tr><th>verifier</th>{{range .Categories}}<th>{{.}}</th>{{end}}</tr>
{{range .CatRows}}<tr><td>{{.Name}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{if .Ensembles}}<h2>Cross-model ensembles</h2>
<p>A sentence is Incorrect if either verifier says so, on the pairs both judged; the last column compares a member's self-verification F1 with the ensemble's on that member's own captions.</p>
<table>
<tr><th>ensemble</th><th>pairs</th><th>precision</th><th>recall</th><th>F1</th><th class="text">self → ensemble</th></tr>
{{range .Ensembles}}<tr><td>{{.Key}}</td><td>{{.Pairs}}</td><td>{{.Precision}}</td><td>{{.Recall}}</td><td>{{.F1}}</td><td class="text">{{.Self}}</td></tr>
{{end}}</table>{{end}}
{{end}}`)

// flagAllWarnings names the verifiers that flagged every sentence they
// judged as Incorrect: their recall is 100% by construction and their
// precision only the share of Incorrect sentences, so a high F1 there says
// nothing about verification (VidOmni-Bench, equation 2, rewards recall).
func (s *Scores) flagAllWarnings() []string {
	var out []string
	for _, n := range s.names {
		total, flagged := 0, 0
		for _, j := range s.judged[n] {
			for _, l := range j.labels {
				total++
				if l == 1 {
					flagged++
				}
			}
		}
		if total > 0 && flagged == total {
			out = append(out, fmt.Sprintf("%s flagged every sentence it judged (%d of %d) as Incorrect: its recall is 100%% by construction and its precision is the share of Incorrect sentences, so its F1 measures the labels, not the verifier.", n, flagged, total))
		}
	}
	return out
}

// heatCell is one cell of a heat map; ok is false for an empty one.
type heatCell struct {
	v     float64
	n     int
	ok    bool
	frame bool // outlined (self-verification)
}

// typeDurationSVG draws one verifier's F1 grid: complexity types down,
// duration brackets across.
func (s *Scores) typeDurationSVG(verifier string) string {
	rows := make([]string, 5)
	cells := make([][]heatCell, 5)
	for t := 1; t <= 5; t++ {
		rows[t-1] = fmt.Sprintf("%d %s", t, Types[t-1])
		for _, b := range s.brackets {
			m, ok := s.grid[verifier][gridKey{t, b.Name}]
			cells[t-1] = append(cells[t-1], heatCell{v: m.F1, n: m.Pairs, ok: ok})
		}
	}
	cols := make([]string, len(s.brackets))
	for i, b := range s.brackets {
		cols[i] = b.Name
	}
	return heatmapSVG("F1 of "+verifier+" by complexity type and duration", "complexity type", "duration", rows, cols, cells)
}

// matrixSVG draws F1 of every verifier on every caption source.
func (s *Scores) matrixSVG() string {
	cells := make([][]heatCell, len(s.names))
	for i, n := range s.names {
		for _, src := range s.sources {
			m, ok := s.Matrix[n][src]
			cells[i] = append(cells[i], heatCell{v: m.F1, n: m.Pairs, ok: ok, frame: m.Self})
		}
	}
	return heatmapSVG("F1, verifier x caption source", "verifier", "caption source", s.names, s.sources, cells)
}

// heatmapSVG draws a grid of values in [0, 1], each cell coloured on a
// white-to-blue scale and labelled with the value in percent and its
// number of pairs; rowTitle and colTitle name the axes.
func heatmapSVG(title, rowTitle, colTitle string, rows, cols []string, cells [][]heatCell) string {
	const cellW, cellH, left, top = 84, 40, 190, 60
	w, h := max(left+cellW*len(cols)+16, left+16*11+48), top+cellH*len(rows)+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, w, h, w, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="12" font-weight="bold" text-anchor="middle">%s</text>`, left+cellW*len(cols)/2, html.EscapeString(colTitle))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" font-weight="bold" text-anchor="end">%s</text>`, left-8, top-10, html.EscapeString(rowTitle))
	// Labels are written whole (no "…"): a column's on up to two lines
	// above its cells, and any line wider than its room squeezed to fit.
	for j, c := range cols {
		lines := wrapLabel(c, 12)
		for k, line := range lines {
			y := top - 10 - 14*(len(lines)-1-k)
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="middle"%s>%s</text>`, left+cellW*j+cellW/2, y, squeeze(line, 7, cellW-6), html.EscapeString(line))
		}
	}
	for i, r := range rows {
		y := top + cellH*i
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end" dominant-baseline="middle"%s>%s</text>`, left-8, y+cellH/2, squeeze(r, 7, left-16), html.EscapeString(r))
		for j, c := range cells[i] {
			x := left + cellW*j
			if !c.ok {
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#f2f2f2" stroke="#fff"/>`, x, y, cellW, cellH)
				continue
			}
			fill, ink := heatColour(c.v)
			stroke := `stroke="#fff"`
			if c.frame {
				stroke = `stroke="#d55e00" stroke-width="3"`
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" %s><title>%s, %s: F1 %s%% over %d pairs</title></rect>`,
				x, y, cellW, cellH, fill, stroke, html.EscapeString(rows[i]), html.EscapeString(cols[j]), pct(c.v), c.n)
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="13" text-anchor="middle" fill="%s">%s</text>`, x+cellW/2, y+cellH/2, ink, pct(c.v))
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="9" text-anchor="middle" fill="%s">n=%d</text>`, x+cellW/2, y+cellH/2+13, ink, c.n)
		}
	}
	// Legend: the scale from 0 to 100%.
	ly := top + cellH*len(rows) + 14
	for k := 0; k <= 10; k++ {
		fill, _ := heatColour(float64(k) / 10)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="16" height="10" fill="%s"/>`, left+16*k, ly, fill)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10" text-anchor="end">F1 0%%</text>`, left-4, ly+9)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10">100%%</text>`, left+16*11+4, ly+9)
	b.WriteString(`</svg>`)
	return b.String()
}

// heatColour maps v in [0, 1] from near white to dark blue (the ends of
// ColorBrewer's Blues scale) and picks a legible ink.
func heatColour(v float64) (fill, ink string) {
	v = math.Max(0, math.Min(1, v))
	lo, hi := [3]float64{247, 251, 255}, [3]float64{8, 48, 107}
	var c [3]int
	for k := range c {
		c[k] = int(math.Round(lo[k] + (hi[k]-lo[k])*v))
	}
	ink = "#111"
	if v > 0.55 {
		ink = "#fff"
	}
	return "#" + hex2(c[0]) + hex2(c[1]) + hex2(c[2]), ink
}

func hex2(v int) string {
	s := strconv.FormatInt(int64(v), 16)
	if len(s) == 1 {
		s = "0" + s
	}
	return s
}

// wrapLabel breaks s at its last space within n runes into two lines, or
// returns it whole on one line when it fits or has no space to break at.
func wrapLabel(s string, n int) []string {
	r := []rune(s)
	if len(r) <= n {
		return []string{s}
	}
	at := -1
	for i, c := range r {
		if c == ' ' && (i <= n || at < 0) {
			at = i
		}
	}
	if at <= 0 {
		return []string{s}
	}
	return []string{string(r[:at]), string(r[at+1:])}
}

// squeeze returns the textLength attributes that fit s, at about perRune px
// a character, into room px, or "" when it fits as set.
func squeeze(s string, perRune, room int) string {
	if len([]rune(s))*perRune <= room {
		return ""
	}
	return fmt.Sprintf(` textLength="%d" lengthAdjust="spacingAndGlyphs"`, room)
}
