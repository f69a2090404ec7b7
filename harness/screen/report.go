package screen

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/vidscreen/vidscreen/harness/htmlpage"
)

// reviewRows bounds the ambiguous items listed in screen.html; every one of
// them is in ambiguity.parquet. The first reviewShown are shown, the rest
// folded away (a <details> element), so that a hundred flagged items do
// not bury the page.
const (
	reviewRows  = 500
	reviewShown = 20
)

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func share(n, of int) string {
	if of == 0 {
		return "-"
	}
	return pct(float64(n) / float64(of))
}

// ruleText says how an attacker solves an item, for the reports.
const ruleText = "a model reader when it answers it: its top option is the gold one and log p(gold) - mean log p(others) > log 2 (the options-only and blind readers: at least three of four seeded option orders correct); any other attacker when it answers it correctly; a seeded guess never (Video-Index 5.1)"

// WriteMarkdown writes screen.md: the funnel per benchmark, then the
// consensus and the ambiguity counts.
func (s *Screen) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Screening of %s\n\n", s.Run)
	fmt.Fprintf(bw, "The funnel (Video-Index 5.1), each step on what the earlier steps left, one reason per removed item (screen.parquet's removed_by): %s. An attacker solves an item as %s. Screening attackers: %s%s. Items whose video failed before a step that reads it are pending, neither kept nor removed.\n", strings.Join(s.Funnel, ", "), ruleText, strings.Join(s.Options.Attackers, ", "), gatedNote(s))
	for _, n := range s.Notes {
		fmt.Fprintf(bw, "\n- %s", n)
	}
	if len(s.Notes) > 0 {
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "\n| benchmark | items | kept | removed | pending | screened by |\n|---|---|---|---|---|---|\n")
	for _, b := range s.Benchmarks {
		fmt.Fprintf(bw, "| %s | %d | %d (%s) | %d | %d | %s |\n", b.Benchmark, b.Items, b.Kept, share(b.Kept, b.Items), b.Removed, b.Pending, strings.Join(b.Screening, ", "))
	}
	fmt.Fprintf(bw, "\n## Removed by each step (entering / removed)\n\n| benchmark |")
	for _, st := range s.Funnel {
		fmt.Fprintf(bw, " %s |", st)
	}
	fmt.Fprintf(bw, "\n|---|%s\n", strings.Repeat("---|", len(s.Funnel)))
	for _, b := range s.Benchmarks {
		fmt.Fprintf(bw, "| %s |", b.Benchmark)
		for _, st := range b.Funnel {
			fmt.Fprintf(bw, " %d / %d%s |", st.Entering, st.Removed, pendingNote(st.Pending))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "\n## Solved by each screening attacker, whichever step removed the item\n\n| benchmark |")
	if len(s.Benchmarks) > 0 {
		for _, c := range s.Benchmarks[0].ByAttacker {
			fmt.Fprintf(bw, " %s |", c.Name)
		}
		fmt.Fprintf(bw, "\n|---|%s\n", strings.Repeat("---|", len(s.Benchmarks[0].ByAttacker)))
	}
	for _, b := range s.Benchmarks {
		fmt.Fprintf(bw, "| %s |", b.Benchmark)
		for _, c := range b.ByAttacker {
			fmt.Fprintf(bw, " %d |", c.Items)
		}
		fmt.Fprintln(bw)
	}
	c := s.Consensus
	fmt.Fprintf(bw, "\n## Consensus (Video-Oasis 3.2)\n\nAn item is a shortcut of a test at c when every one of the test's diagnostic models answered it and at least c of them solve it (rule %s), and a shortcut at c when it is one of some test. Chance: the ratio if every model that answered an item picked uniformly among its options, independently%s.\n\n| test | models | note |\n|---|---|---|\n", consensusRuleText(c.Rule), chanceText(c.Rule))
	for _, t := range c.Tests {
		fmt.Fprintf(bw, "| %s | %s | %s |\n", t.Test, modelsText(t.Models), t.Note)
	}
	fmt.Fprintln(bw)
	for _, set := range []struct {
		title string
		rows  []Shortcuts
	}{{"benchmark", c.Benchmarks}, {"group", c.Groups}} {
		fmt.Fprintf(bw, "| %s | items |", set.title)
		for _, t := range c.Thresholds {
			fmt.Fprintf(bw, " c >= %d | chance |", t)
		}
		fmt.Fprintf(bw, "\n|---|---|%s\n", strings.Repeat("---|---|", len(c.Thresholds)))
		for _, r := range set.rows {
			fmt.Fprintf(bw, "| %s | %d |", nameOr(r.Name), r.Items)
			for k := range c.Thresholds {
				fmt.Fprintf(bw, " %d (%s) | %s |", r.Shortcuts[k], pct(r.Ratio[k]), pct(r.Chance[k]))
			}
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "| test |")
	for _, t := range c.Thresholds {
		fmt.Fprintf(bw, " total c >= %d | unique |", t)
	}
	fmt.Fprintf(bw, "\n|---|%s\n", strings.Repeat("---|---|", len(c.Thresholds)))
	for _, t := range c.Counts {
		fmt.Fprintf(bw, "| %s |", t.Test)
		for k := range c.Thresholds {
			fmt.Fprintf(bw, " %d | %d |", t.Total[k], t.Unique[k])
		}
		fmt.Fprintln(bw)
	}
	a := c.Ambiguity
	fmt.Fprintf(bw, "\n## Ambiguity flags\n\nFor review (ambiguity.parquet; Video-Oasis 3.1, criteria 3): consistency (the full-video models disagree as much as they can) %d, redundancy (solved on every one of eight chunks of the video) %d, sensitivity (solved with the frames shuffled; the queue is %s) %d, of which a person restored %d; %d items in all.\n", a.Consistency, a.Redundancy, SensitivityJSONL, a.Sensitivity, a.Restored, a.Any)
	for _, ck := range c.Checks {
		if ck.Note != "" {
			fmt.Fprintf(bw, "\n- %s: %s\n", ck.Check, ck.Note)
		}
	}
	return bw.Flush()
}

// consensusRuleText says what the consensus rule counts.
func consensusRuleText(rule string) string {
	if rule == RuleSolve {
		return RuleSolve + ": the attacker's Video-Index solve rule, the project's variant"
	}
	return RuleCorrect + ": its answer is the gold option, as Video-Oasis"
}

// chanceText says how the chance ratio treats the option orders.
func chanceText(rule string) string {
	if rule == RuleSolve {
		return ", on each option order it is judged on (three right of four for the options-only and blind readers)"
	}
	return ""
}

func pendingNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d pending)", n)
}

// modelsText lists a test's models with their attackers.
func modelsText(ms []Model) string {
	if len(ms) == 0 {
		return "-"
	}
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s (%s)", m.Model, strings.Join(m.Attackers, ", ")))
	}
	return strings.Join(out, "; ")
}

// gatedNote says where the screening attackers screen.
func gatedNote(s *Screen) string {
	if s.Options.EveryAttacker {
		return ""
	}
	return " (a learner or matcher only on a benchmark whose card finds it significantly above chance: column \"screened by\")"
}

func nameOr(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

var screenHTML = htmlpage.New("screen", template.FuncMap{
	"pct": pct, "share": share, "nameOr": nameOr, "join": strings.Join, "gatedNote": gatedNote, "models": modelsText, "consensusRuleText": consensusRuleText, "chanceText": chanceText,
	"flags": func(r *Row) string {
		var f []string
		for _, x := range []struct {
			on   bool
			name string
		}{{r.Consistency, "consistency"}, {r.Redundancy, "redundancy"}, {r.Sensitivity, "sensitivity"}, {r.Restored, "restored"}} {
			if x.on {
				f = append(f, x.name)
			}
		}
		return strings.Join(f, ", ")
	},
}, `{{define "title"}}Screening of {{.S.Run}}{{end}}{{define "body"}}<h1>Screening of {{.S.Run}}</h1>
<p>The funnel (Video-Index 5.1), each step on what the earlier steps left, one reason per removed item (screen.parquet's <code>removed_by</code>): {{join .S.Funnel ", "}}. An attacker solves an item as {{.Rule}}. Screening attackers: {{join .S.Options.Attackers ", "}}{{gatedNote .S}}. Items whose video failed before a step that reads it are pending, neither kept nor removed.</p>
{{if .S.Notes}}<ul>{{range .S.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>What screening removes</h2>
<table><tr><th>benchmark</th><th>items</th><th>kept</th><th>removed</th><th>pending</th><th class="text">screened by</th></tr>
{{range .S.Benchmarks}}<tr><td>{{.Benchmark}}</td><td>{{.Items}}</td><td>{{.Kept}} ({{share .Kept .Items}})</td><td>{{.Removed}}</td><td>{{.Pending}}</td><td class="text">{{join .Screening ", "}}</td></tr>
{{end}}</table>
<h3>Removed by each step (removed_by; entering / removed)</h3>
<table><tr><th>benchmark</th>{{range .S.Funnel}}<th>{{.}}</th>{{end}}</tr>
{{range .S.Benchmarks}}<tr><td>{{.Benchmark}}</td>{{range .Funnel}}<td>{{.Entering}} / {{.Removed}}{{if .Pending}} ({{.Pending}} pending){{end}}</td>{{end}}</tr>
{{end}}</table>
<h3>Solved by each screening attacker, whichever step removed the item</h3>
<table>{{range $i, $b := .S.Benchmarks}}{{if eq $i 0}}<tr><th>benchmark</th>{{range $b.ByAttacker}}<th>{{.Name}}</th>{{end}}</tr>{{end}}
<tr><td>{{$b.Benchmark}}</td>{{range $b.ByAttacker}}<td>{{.Items}}</td>{{end}}</tr>{{end}}</table>
<h2>Consensus (Video-Oasis 3.2)</h2>
<p>An item is a shortcut of a test at c when every one of the test's diagnostic models answered it and at least c of them solve it (rule {{consensusRuleText .S.Consensus.Rule}}), and a shortcut at c when it is one of some test. Chance: the ratio if every model that answered an item picked uniformly among its options, independently{{chanceText .S.Consensus.Rule}}.</p>
<table><caption>The tests and their diagnostic models</caption><tr><th>test</th><th class="text">models</th><th class="text">note</th></tr>
{{range .S.Consensus.Tests}}<tr><td>{{.Test}}</td><td class="q">{{models .Models}}</td><td class="q">{{.Note}}</td></tr>
{{end}}</table>
{{$th := .S.Consensus.Thresholds}}
{{range .Sets}}<table><caption>Shortcuts by {{.Title}}: items at c or more (their share), against chance</caption><tr><th>{{.Title}}</th><th>items</th>{{range $th}}<th>c &ge; {{.}}</th><th>chance</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{nameOr .Name}}</td><td>{{.Items}}</td>{{$r := .}}{{range $k, $t := $th}}<td>{{index $r.Shortcuts $k}} ({{pct (index $r.Ratio $k)}})</td><td>{{pct (index $r.Chance $k)}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
<table><caption>Shortcuts per test: all it finds, and those no other test finds (unique)</caption><tr><th>test</th>{{range $th}}<th>total c &ge; {{.}}</th><th>unique</th>{{end}}</tr>
{{range .S.Consensus.Counts}}<tr><td>{{.Test}}</td>{{$t := .}}{{range $k, $c := $th}}<td>{{index $t.Total $k}}</td><td>{{index $t.Unique $k}}</td>{{end}}</tr>
{{end}}</table>
<h2 id="ambiguity">Ambiguity flags for review</h2>
{{with .S.Consensus.Ambiguity}}<p>Consistency (the full-video models disagree as much as they can): {{.Consistency}}; redundancy (solved on every one of eight chunks of the video): {{.Redundancy}}; sensitivity (solved with the frames shuffled; the review queue is <a href="sensitivity.jsonl">sensitivity.jsonl</a>): {{.Sensitivity}}, {{.Restored}} restored by a person; {{.Any}} items in all, every one in ambiguity.parquet.</p>{{end}}
{{range .S.Consensus.Checks}}{{if .Note}}<p>{{.Check}}: {{.Note}}</p>
{{end}}{{end}}
{{if .Review}}<p>The first {{len .Review}} of them, in the run's order; every one, with its options and answers, is in <a href="ambiguity.parquet">ambiguity.parquet</a>.</p>
{{template "review" .Review}}
{{if .Folded}}<details><summary>{{len .Folded}} more{{if .More}} (and {{.More}} only in ambiguity.parquet){{end}}</summary>
{{template "review" .Folded}}
</details>{{else if .More}}<p>{{.More}} more in ambiguity.parquet.</p>{{end}}{{end}}
{{end}}{{define "review"}}<table><tr><th>benchmark</th><th class="text">id</th><th class="text">question</th><th class="text">answer</th><th class="text">flags</th><th>agreement</th><th>most models of one test solving</th></tr>
{{range .}}<tr><td>{{.Benchmark}}</td><td class="text">{{.ID}}</td><td class="q">{{.Question}}</td><td class="text">{{index .Options .Answer}}</td><td class="text">{{flags .}}</td><td>{{pct .Agreement}}</td><td>{{.Diagnostics}}</td></tr>
{{end}}</table>{{end}}`)

// WriteHTML writes screen.html: what WriteMarkdown writes, and a section
// listing the ambiguous items for review (the first 20 shown, the next 480
// folded under "more"; all of them are in ambiguity.parquet).
func (s *Screen) WriteHTML(w io.Writer) error {
	type set struct {
		Title string
		Rows  []Shortcuts
	}
	data := struct {
		S      *Screen
		Rule   string
		Sets   []set
		Review []*Row // shown
		Folded []*Row // listed under "more"
		More   int    // only in ambiguity.parquet
	}{S: s, Rule: ruleText, Sets: []set{{"benchmark", s.Consensus.Benchmarks}, {"group", s.Consensus.Groups}}}
	for i := range s.Rows {
		r := &s.Rows[i]
		if !r.Ambiguous() || r.Answer < 0 || int(r.Answer) >= len(r.Options) {
			continue
		}
		switch {
		case len(data.Review) < reviewShown:
			data.Review = append(data.Review, r)
		case len(data.Review)+len(data.Folded) < reviewRows:
			data.Folded = append(data.Folded, r)
		default:
			data.More++
		}
	}
	return screenHTML.Execute(w, data)
}
