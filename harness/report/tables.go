package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TableFormats are the formats WriteTable writes, as `vidscreen cards
// --format` names them.
var TableFormats = []string{"latex", "csv", "md"}

// paperLevels gives, per level, Video-Index's symbol for its exploitability
// (002, section 2: eps_opt ... eps_order) and the blog's one-line name of
// what the level adds (001, "Five levels"), so that a table row can be read
// against the paper's figures.
var paperLevels = map[harness.Level]struct{ symbol, latex, what string }{
	harness.LevelOption: {"ε_opt", `$\varepsilon_{\mathrm{opt}}$`, "the answer options alone"},
	harness.LevelText:   {"ε_text", `$\varepsilon_{\mathrm{text}}$`, "adds the question"},
	harness.LevelPool:   {"ε_pool", `$\varepsilon_{\mathrm{pool}}$`, "adds the other evaluated items"},
	harness.LevelFrame:  {"ε_frame", `$\varepsilon_{\mathrm{frame}}$`, "adds one frame or captions"},
	harness.LevelOrder:  {"ε_order", `$\varepsilon_{\mathrm{order}}$`, "adds the video, shuffled or a contiguous tenth"},
}

// paperAttackers names each vidscreen attacker as the papers call its
// counterpart (docs/attackers.md, "Every attacker", column "from"): the
// blog's tables 14-15 labels L0-L3 for the pool attackers, superscript c
// for a store preloaded with other benchmarks, and the papers' words for
// the readers. An attacker with no counterpart in the papers maps to "".
var paperAttackers = map[string]string{
	"fixed-position":                "fixed answer position",
	"options-reader":                "options-only reader",
	"question-match":                "",
	"option-artifact":               "",
	"blind-reader":                  "blind reader",
	"position-prior":                "L0",
	"copy":                          "L1",
	"siblings":                      "L2-rule",
	"knn-vote":                      "L3 (model-free)",
	"retrieval-reader":              "L3",
	"copy-xpool":                    "L1^c",
	"knn-vote-xpool":                "L3^c (model-free)",
	"retrieval-reader-xpool":        "L3^c",
	"regression":                    "logistic regression (Brown et al.)",
	"centre-frame":                  "one frame",
	"centre-frame-qa":               "one frame",
	"centre-frame-reader":           "one frame",
	"captions-match":                "captions",
	"captions-reader":               "captions",
	"shuffled-frames-reader":        "shuffled frames",
	"contiguous-tenth-reader":       "a contiguous tenth",
	"bag-of-frames-mean":            "bag of frames (Video-Oasis)",
	"bag-of-frames-max":             "bag of frames (Video-Oasis)",
	"transcript-match":              "audio (Video-Oasis)",
	"transcript-reader":             "audio (Video-Oasis)",
	"full-video-reader":             "32 frames (screening)",
	"shuffled-frames-screen-reader": "32 shuffled frames (screening)",
}

// PaperAttacker is the papers' name for attacker name ("L1" for copy), ""
// when the papers have no counterpart. A later model of a role ("#2") has
// its first model's name.
func PaperAttacker(name string) string {
	base, _, _ := strings.Cut(name, "#")
	return paperAttackers[base]
}

// A TableRow is one benchmark at one level of a paper table. Every figure
// is read from the card as metrics computed it; nothing is recomputed.
type TableRow struct {
	Benchmark string
	N         int
	Level     harness.Level
	// Result is nil for a level that was asked for and answered no item;
	// NotRun then says why.
	Result *metrics.LevelResult
	NotRun string
	// Breaks is true on the card's breaking level at delta = 5% (the
	// papers' tolerance); BreakKnown is false when the card has no
	// breaking level because the run had no reference (s*).
	Breaks, BreakKnown bool
	// ALC, on the pool row only, is the card's ALC (0 at chance, 1 at
	// perfect accuracy throughout) and ALCAttacker its attacker.
	ALC         *float64
	ALCAttacker string
}

// TableRows lists, per card in order and per level from the least access
// to the most, the levels that ran or were asked for.
func TableRows(cards []metrics.Card) []TableRow {
	var rows []TableRow
	for _, c := range cards {
		var breaks string
		known := c.BreakingLevel != nil
		if known && c.BreakingLevel["0.05"] != nil {
			breaks = *c.BreakingLevel["0.05"]
		}
		for _, l := range harness.Levels() {
			r := c.Levels.At(l)
			why, asked := c.LevelsNotRun[l.String()]
			if r == nil && !asked {
				continue
			}
			row := TableRow{Benchmark: c.Benchmark, N: c.N, Level: l, Result: r, NotRun: why, Breaks: breaks == l.String(), BreakKnown: known}
			if l == harness.LevelPool && c.ALC != nil {
				row.ALC, row.ALCAttacker = c.ALC, c.ALCAttacker
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// ReadCardsFile reads the cards of a cards.json, refusing a file that is
// not one: the tables render only what the audit wrote.
func ReadCardsFile(path string) ([]metrics.Card, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f cardsFile
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w: not a cards.json: %v", path, harness.ErrBadInput, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: %w: more than one JSON value", path, harness.ErrBadInput)
	}
	if f.Cards == nil {
		return nil, fmt.Errorf("%s: %w: field cards: missing", path, harness.ErrBadInput)
	}
	return f.Cards, nil
}

// WriteTable writes the cards as one table in format (latex, csv or md):
// per benchmark and level, vidscreen's level and the paper's beside it,
// eps in % with its exact test, the attacker that reached it and the
// papers' name for it, and on the pool row the ALC on the card's 0-1 scale
// and on the blog's 0-100 one (001, tables 14-15).
func WriteTable(w io.Writer, cards []metrics.Card, format string) error {
	rows := TableRows(cards)
	switch format {
	case "csv":
		return writeCSV(w, rows)
	case "md":
		return writeMDTable(w, rows)
	case "latex":
		return writeLaTeX(w, rows)
	}
	return fmt.Errorf("unknown table format %q (want one of %s)", format, strings.Join(TableFormats, ", "))
}

// alc100 is an ALC on the blog's scale: 0 at chance, 100 at perfect
// accuracy throughout (001, tables 14-15).
func alc100(x float64) float64 { return 100 * x }

// significance says how the row's attacker fared in the exact test:
// "yes" after Holm's correction, notSignificantAfterCorrection when only
// alone, "no" otherwise.
func significance(r *metrics.LevelResult) string {
	switch {
	case r.Significant:
		return "yes"
	case r.SignificantUncorrected:
		return notSignificantAfterCorrection
	}
	return "no"
}

func writeCSV(w io.Writer, rows []TableRow) error {
	cw := csv.NewWriter(w)
	head := []string{"benchmark", "n", "level", "paper_level", "paper_level_adds", "eps", "eps_pct", "significant", "p_value", "attacker", "paper_attacker", "breaks", "alc", "alc_100", "alc_attacker", "not_run"}
	if err := cw.Write(head); err != nil {
		return err
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range rows {
		p := paperLevels[r.Level]
		rec := []string{r.Benchmark, strconv.Itoa(r.N), r.Level.String(), p.symbol, p.what, "", "", "", "", "", "", "", "", "", r.ALCAttacker, r.NotRun}
		if r.BreakKnown {
			rec[11] = strconv.FormatBool(r.Breaks)
		}
		if res := r.Result; res != nil {
			rec[5], rec[6], rec[7], rec[8] = g(res.Eps), strconv.FormatFloat(100*res.Eps, 'f', 1, 64), significance(res), g(res.PValue)
			rec[9], rec[10] = res.Attacker, PaperAttacker(res.Attacker)
		}
		if r.ALC != nil {
			rec[12], rec[13] = g(*r.ALC), strconv.FormatFloat(alc100(*r.ALC), 'f', 1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// cells are one row's figures as the Markdown and LaTeX tables print them.
type cells struct{ eps, sig, attacker, paper, breaks, alc, alc100 string }

func rowCells(r TableRow) cells {
	c := cells{eps: "-", sig: "-", attacker: "-", paper: "-", breaks: "-", alc: "-", alc100: "-"}
	if r.BreakKnown {
		c.breaks = yesNo(r.Breaks)
	}
	if res := r.Result; res != nil {
		c.eps, c.sig, c.attacker = signedPct(res.Eps), significance(res), res.Attacker
		if p := PaperAttacker(res.Attacker); p != "" {
			c.paper = p
		}
	} else {
		c.eps = "not run"
		if r.NotRun != "" {
			c.eps += ": " + r.NotRun
		}
	}
	if r.ALC != nil {
		c.alc = strconv.FormatFloat(*r.ALC, 'f', 3, 64)
		c.alc100 = strconv.FormatFloat(alc100(*r.ALC), 'f', 1, 64)
	}
	return c
}

func writeMDTable(w io.Writer, rows []TableRow) error {
	var b strings.Builder
	b.WriteString("| benchmark | n | level | Video-Index level | eps | significant | attacker | papers' attacker | breaks (delta 5%) | ALC | ALC (0-100) |\n")
	b.WriteString("|---|---:|---|---|---:|---|---|---|---|---:|---:|\n")
	for _, r := range rows {
		c, p := rowCells(r), paperLevels[r.Level]
		fmt.Fprintf(&b, "| %s | %d | %s | %s, %s | %s | %s | %s | %s | %s | %s | %s |\n",
			mdEscape(r.Benchmark), r.N, r.Level, p.symbol, p.what, mdEscape(c.eps), c.sig,
			mdEscape(c.attacker), mdEscape(c.paper), c.breaks, c.alc, c.alc100)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latexEscaper escapes the ten characters LaTeX treats specially in text
// mode, so that a benchmark or attacker name prints as written.
var latexEscaper = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`,
	`_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
)

// LaTeXEscape returns s as LaTeX text that prints s.
func LaTeXEscape(s string) string { return latexEscaper.Replace(s) }

// latexPaperAttacker writes the papers' "L1^c" with a real superscript.
func latexPaperAttacker(s string) string {
	if s == "-" {
		return s
	}
	if head, tail, ok := strings.Cut(s, "^c"); ok {
		return LaTeXEscape(head) + `\textsuperscript{c}` + LaTeXEscape(tail)
	}
	return LaTeXEscape(s)
}

func writeLaTeX(w io.Writer, rows []TableRow) error {
	var b strings.Builder
	b.WriteString("% vidscreen cards --format latex; needs \\usepackage{booktabs}\n")
	b.WriteString("\\begin{tabular}{llllrlllrr}\n\\toprule\n")
	b.WriteString("Benchmark & $n$ & Level & Video-Index & $\\varepsilon$ (\\%) & Attacker & Papers' attacker & Breaks & ALC & ALC (0--100) \\\\\n\\midrule\n")
	prev := ""
	for i, r := range rows {
		if i > 0 && r.Benchmark != prev {
			b.WriteString("\\midrule\n")
		}
		prev = r.Benchmark
		c, p := rowCells(r), paperLevels[r.Level]
		eps := LaTeXEscape(c.eps)
		if r.Result != nil {
			eps = strconv.FormatFloat(100*r.Result.Eps, 'f', 1, 64)
			if !r.Result.Significant {
				eps += "\\textsuperscript{ns}"
			}
		}
		fmt.Fprintf(&b, "%s & %d & %s & %s & %s & %s & %s & %s & %s & %s \\\\\n",
			LaTeXEscape(r.Benchmark), r.N, r.Level, p.latex, eps, LaTeXEscape(c.attacker),
			latexPaperAttacker(c.paper), c.breaks, c.alc, c.alc100)
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	b.WriteString("% ns: not significant after Holm's correction (exact test). Breaks: the card's breaking level at delta = 5% (- without a reference).\n")
	b.WriteString("% ALC: the pool attacker's normalised area under its learning curve, 0 at chance; ALC (0--100) is the blog's scale.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
