package release

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	texttemplate "text/template"

	"github.com/vidscreen/vidscreen/harness/htmlpage"
)

// A count is one row of a composition table.
type count struct {
	Name string
	N    int
}

// summary is what both reports show.
type summary struct {
	R            *Release
	Mode         string
	Sources      []count
	Durations    []count
	Events       []count
	EventsBy     string
	InitialCaps  string
	FinalCaps    string
	QueryText    string
	ResidualRows []AttackerResidual
	// Rerun and Carried name the attackers that attacked the selection
	// again on the released option order and those whose screened
	// verdicts were carried over (Video-Index 5.2; issue 20.6).
	Rerun, Carried string
	// Warnings say, at the top of both reports, what makes the release not
	// yet shortcut-free: a level still significant on the released items,
	// or items still solved in the gate's last round (Video-Index 5.2: the
	// gate stops at its round limit, not at a clean selection).
	Warnings []string
	// RoundsChart draws the gate's rounds for report.html.
	RoundsChart template.HTML
}

func (r *Release) summary() summary {
	s := summary{R: r, ResidualRows: r.Gated.Residual.Attackers}
	var rerun, carried []string
	for _, a := range s.ResidualRows {
		if a.Rerun {
			rerun = append(rerun, a.Name)
		} else {
			carried = append(carried, a.Name)
		}
	}
	s.Rerun, s.Carried = orNone(rerun), orNone(carried)
	s.Warnings = r.warnings()
	s.RoundsChart = roundsSVG(r.Gated.Rounds)
	q := r.Lockfile.Query
	s.EventsBy = q.Events
	if s.EventsBy == "" {
		s.EventsBy = EventsTask
	}
	if q.Hardest > 0 {
		per := q.Per
		if per == "" {
			per = PerGroup
		}
		s.Mode = fmt.Sprintf("the %d hardest items per %s, one per video", q.Hardest, per)
		s.EventsBy = per
	} else {
		s.Mode = fmt.Sprintf("a coverage composition of %d items", q.Budget)
		caps := DefaultCaps()
		if q.Caps != nil {
			caps = *q.Caps
		}
		s.InitialCaps = capsText(caps, q.Budget)
		s.FinalCaps = capsText(r.Gated.Selection.Caps, q.Budget) + groupCapsText(r.Gated.Selection.Caps)
	}
	src, dur, ev := map[string]int{}, map[string]int{}, map[string]int{}
	for _, i := range r.Gated.Selection.Picks {
		it := r.Pool.Candidates[i].Item
		src[it.Benchmark]++
		dur[DurationGroup(it)]++
		switch s.EventsBy {
		case PerBenchmark:
			ev[it.Benchmark]++
		default:
			ev[groupName(eventOf(it, s.EventsBy))]++
		}
	}
	s.Sources, s.Events = counts(src), counts(ev)
	for _, d := range DurationGroups() {
		if dur[d] > 0 {
			s.Durations = append(s.Durations, count{d, dur[d]})
		}
	}
	var parts []string
	if len(q.Sources) > 0 {
		parts = append(parts, "sources "+strings.Join(q.Sources, ", "))
	}
	if len(q.Durations) > 0 {
		parts = append(parts, "durations "+strings.Join(q.Durations, ", "))
	}
	if len(parts) == 0 {
		parts = append(parts, "every screened item")
	}
	s.QueryText = strings.Join(parts, "; ")
	return s
}

// warnings lists what the reader of a release must know first.
func (r *Release) warnings() []string {
	var out []string
	var sig []string
	for _, l := range r.Gated.Residual.Levels {
		if l.Significant {
			sig = append(sig, fmt.Sprintf("%s (eps %+.1f%% by %s)", l.Level, 100*l.Eps, l.Attacker))
		}
	}
	if len(sig) > 0 {
		out = append(out, "The released items are still significantly exploitable at "+strings.Join(sig, ", ")+": see Residual exploitability.")
	}
	if rounds := r.Gated.Rounds; len(rounds) > 0 {
		if last := rounds[len(rounds)-1]; last.Solved > 0 {
			out = append(out, fmt.Sprintf("The red-team gate's last round (%d) still solved %d of the %d selected items; they stay in the release (the gate ran out of rounds: --rounds).", last.Round, last.Solved, last.Selected))
		}
	}
	return out
}

func counts(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, v := range m {
		out = append(out, count{k, v})
	}
	slices.SortFunc(out, func(a, b count) int { return cmp.Or(b.N-a.N, strings.Compare(a.Name, b.Name)) })
	return out
}

func capsText(c Caps, budget int) string {
	return fmt.Sprintf("%d per video, %d per scene, %d per question template, %g%% of the budget per source (%s)",
		c.PerVideo, c.PerScene, c.PerTemplate, 100*c.SourceShare, itemCount(c.perSource(budget)))
}

// groupCapsText says the caps each relaxed duration group reached
// (Caps.Groups), shortest group first: the top-level caps are only those
// of the groups never relaxed.
func groupCapsText(c Caps) string {
	if len(c.Groups) == 0 {
		return ""
	}
	var parts []string
	for _, g := range DurationGroups() {
		gc, ok := c.Groups[g]
		if !ok {
			continue
		}
		p := fmt.Sprintf("%s %d per scene, %d per template", g, gc.PerScene, gc.PerTemplate)
		if gc.SourceExempt {
			p += ", exempt from the source cap"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; relaxed per duration group: " + strings.Join(parts, "; ")
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// countsOn says where a carried-over verdict drops items.
func countsOn(a AttackerResidual) string {
	if a.Rerun {
		if readerDrops(&a) {
			return "the selection (a model reader drops what it solves)"
		}
		if a.Significant {
			return "the selection"
		}
		return "nowhere (not significant on the selection)"
	}
	return orNone(a.CountsOn)
}

func pct(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

func solvedBy(m map[string]int) string {
	var parts []string
	for _, c := range counts(m) {
		parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.N))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

var funcs = template.FuncMap{"pct": pct, "solvedBy": solvedBy, "countsOn": countsOn, "yes": func(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}}

// WriteMarkdown writes report.md: what was asked, what was selected, every
// relaxation, every round of the gate and the residual exploitability.
func (r *Release) WriteMarkdown(w io.Writer) error {
	return markdown.Execute(w, r.summary())
}

// WriteHTML writes report.html, the same as report.md as one self-contained
// page.
func (r *Release) WriteHTML(w io.Writer) error {
	return page.Execute(w, r.summary())
}

var markdown = texttemplate.Must(texttemplate.New("md").Funcs(texttemplate.FuncMap(funcs)).Parse(`# Release {{.R.Name}}

{{len .R.Items}} items: {{.Mode}}, from {{.QueryText}}; seed {{.R.Lockfile.Seed}}; selector {{.R.Lockfile.Selector}}, vidscreen {{.R.Lockfile.Vidscreen}}.
Pool: {{.R.Lockfile.Pool.Items}} screened items, snapshot {{.R.Lockfile.Pool.Snapshot}}; videos identified by {{.R.Lockfile.Pool.Videos}}.
{{- range .Warnings}}

**Not shortcut-free:** {{.}}
{{- end}}{{- if .R.Lockfile.Shortfall}}

**Short of the request:** {{.R.Lockfile.Shortfall}}.
{{- end}}

## Composition

| source | items |
|---|---:|
{{range .Sources}}| {{.Name}} | {{.N}} |
{{end}}
| duration | items |
|---|---:|
{{range .Durations}}| {{.Name}} | {{.N}} |
{{end}}
| {{.EventsBy}} | items |
|---|---:|
{{range .Events}}| {{.Name}} | {{.N}} |
{{end}}
{{- if .InitialCaps}}
## Caps

Initial: {{.InitialCaps}}.
Final: {{.FinalCaps}}.

{{if .R.Lockfile.Relaxations}}| round | selected | cap | from | to | reason |
|---:|---:|---|---|---|---|
{{range .R.Lockfile.Relaxations}}| {{.Round}} | {{.Selected}} | {{.Cap}} | {{.From}} | {{.To}} | {{.Reason}} |
{{end}}{{else}}No cap was relaxed.
{{end}}{{end}}
## Red-team gate

At most {{.R.Lockfile.RedTeam.MaxRounds}} rounds of drop and refill; re-run attackers embed with {{.R.Lockfile.RedTeam.Embedder}}; verdict: {{.R.Lockfile.RedTeam.Rule}}.

| round | selected | solved | dropped | solved by |
|---:|---:|---:|---:|---|
{{range .R.Gated.Rounds}}| {{.Round}} | {{.Selected}} | {{.Solved}} | {{.Dropped}} | {{solvedBy .SolvedBy}} |
{{end}}
Re-ran on the released option order: {{.Rerun}}.
Screened verdicts carried over (they drop an item only where the run's card finds the attacker significant on its benchmark): {{.Carried}}.

## Residual exploitability

| level | eps | attacker | significant |
|---|---:|---|---|
{{range .R.Gated.Residual.Levels}}| {{.Level}} | {{pct .Eps}} | {{.Attacker}} | {{yes .Significant}} |
{{end}}
| attacker | level | re-run | n | accuracy | chance | margin | p (exact) | significant (Holm) | 2.326 sqrt(c(1-c)/n) | solved | solved, not significant | drops on |
|---|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|
{{range .ResidualRows}}| {{.Name}} | {{.Level}}{{if .Aside}} (aside: {{.Aside}}){{end}} | {{yes .Rerun}} | {{.N}} | {{printf "%.3f" .Accuracy}} | {{printf "%.3f" .Chance}} | {{pct .Margin}} | {{printf "%.3g" .PValue}} | {{yes .Significant}} | {{yes .PaperSignificant}} | {{.Solved}} | {{.Ignored}} | {{countsOn .}} |
{{end}}`))

var page = htmlpage.New("html", funcs, `{{define "title"}}release {{.R.Name}}{{end}}{{define "body"}}<h1>Release {{.R.Name}}</h1>
<p>{{len .R.Items}} items: {{.Mode}}, from {{.QueryText}}; seed {{.R.Lockfile.Seed}}; selector {{.R.Lockfile.Selector}}, vidscreen {{.R.Lockfile.Vidscreen}}.<br>
Pool: {{.R.Lockfile.Pool.Items}} screened items, snapshot <code>{{.R.Lockfile.Pool.Snapshot}}</code>; videos identified by {{.R.Lockfile.Pool.Videos}}.</p>
{{range .Warnings}}<p class="warn"><b>Not shortcut-free:</b> {{.}}</p>
{{end}}{{if .R.Lockfile.Shortfall}}<p class="warn"><b>Short of the request:</b> {{.R.Lockfile.Shortfall}}.</p>{{end}}
<h2>Composition</h2>
<table><tr><th>source</th><th>items</th><th></th></tr>
{{range .Sources}}<tr><td>{{.Name}}</td><td>{{.N}}</td><td class="text"><span class="bar" style="width:{{.N}}px"></span></td></tr>
{{end}}</table>
<table><tr><th>duration</th><th>items</th></tr>
{{range .Durations}}<tr><td>{{.Name}}</td><td>{{.N}}</td></tr>
{{end}}</table>
<table><tr><th>{{.EventsBy}}</th><th>items</th></tr>
{{range .Events}}<tr><td>{{.Name}}</td><td>{{.N}}</td></tr>
{{end}}</table>
{{if .InitialCaps}}<h2>Caps</h2>
<p>Initial: {{.InitialCaps}}.<br>Final: {{.FinalCaps}}.</p>
{{if .R.Lockfile.Relaxations}}<table><tr><th>round</th><th>selected</th><th>cap</th><th>from</th><th>to</th><th>reason</th></tr>
{{range .R.Lockfile.Relaxations}}<tr><td>{{.Round}}</td><td>{{.Selected}}</td><td class="text">{{.Cap}}</td><td class="text">{{.From}}</td><td class="text">{{.To}}</td><td class="text">{{.Reason}}</td></tr>
{{end}}</table>{{else}}<p>No cap was relaxed.</p>{{end}}{{end}}
<h2>Red-team gate</h2>
<p>At most {{.R.Lockfile.RedTeam.MaxRounds}} rounds of drop and refill; re-run attackers embed with {{.R.Lockfile.RedTeam.Embedder}}; verdict: {{.R.Lockfile.RedTeam.Rule}}.</p>
<table><tr><th>round</th><th>selected</th><th>solved</th><th>dropped</th><th>solved by</th></tr>
{{range .R.Gated.Rounds}}<tr><td>{{.Round}}</td><td>{{.Selected}}</td><td>{{.Solved}}</td><td>{{.Dropped}}</td><td class="text">{{solvedBy .SolvedBy}}</td></tr>
{{end}}</table>
{{.RoundsChart}}
<p>Re-ran on the released option order: {{.Rerun}}.<br>
Screened verdicts carried over (they drop an item only where the run's card finds the attacker significant on its benchmark): {{.Carried}}.</p>
<h2>Residual exploitability</h2>
<table><tr><th>level</th><th>eps</th><th>attacker</th><th>significant</th></tr>
{{range .R.Gated.Residual.Levels}}<tr><td>{{.Level}}</td><td>{{pct .Eps}}</td><td class="text">{{.Attacker}}</td><td>{{yes .Significant}}</td></tr>
{{end}}</table>
<table><tr><th>attacker</th><th>level</th><th>re-run</th><th>n</th><th>accuracy</th><th>chance</th><th>margin</th><th>p (exact)</th><th>significant (Holm)</th><th>2.326 sqrt(<wbr>c(1-c)/<wbr>n)</th><th>solved</th><th>solved, not significant</th><th>drops on</th></tr>
{{range .ResidualRows}}<tr><td>{{.Name}}</td><td>{{.Level}}{{if .Aside}} (aside: {{.Aside}}){{end}}</td><td>{{yes .Rerun}}</td><td>{{.N}}</td><td>{{printf "%.3f" .Accuracy}}</td><td>{{printf "%.3f" .Chance}}</td><td>{{pct .Margin}}</td><td>{{printf "%.3g" .PValue}}</td><td>{{yes .Significant}}</td><td>{{yes .PaperSignificant}}</td><td>{{.Solved}}</td><td>{{.Ignored}}</td><td class="text">{{countsOn .}}</td></tr>
{{end}}</table>
{{end}}`)
