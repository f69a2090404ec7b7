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
// them is in ambiguity.parquet.
const reviewRows = 500

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func share(n, of int) string {
	if of == 0 {
		return "-"
	}
	return pct(float64(n) / float64(of))
}

// countTable writes a section of one row of counts per benchmark, its
// columns named by the first benchmark's counts (every benchmark has the
// same ones).
func countTable(bw *bufio.Writer, title string, benchmarks []Summary, counts func(*Summary) []Count) {
	fmt.Fprintf(bw, "\n## %s\n\n| benchmark |", title)
	if len(benchmarks) > 0 {
		cols := counts(&benchmarks[0])
		for _, c := range cols {
			fmt.Fprintf(bw, " %s |", c.Name)
		}
		fmt.Fprintf(bw, "\n|---|%s\n", strings.Repeat("---|", len(cols)))
	}
	for i := range benchmarks {
		fmt.Fprintf(bw, "| %s |", benchmarks[i].Benchmark)
		for _, c := range counts(&benchmarks[i]) {
			fmt.Fprintf(bw, " %d |", c.Items)
		}
		fmt.Fprintln(bw)
	}
}

// WriteMarkdown writes screen.md: per benchmark what screening removes and
// why, then the consensus and the ambiguity counts.
func (s *Screen) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Screening of %s\n\n", s.Run)
	fmt.Fprintf(bw, "Screening attackers: %s. An item is removed when one of them solves it (a model reader: margin > log 2 where scored; any other: correct where scored, not a seeded guess)%s, when it duplicates an item kept from another benchmark, when its video failed", strings.Join(s.Options.Attackers, ", "), gatedNote(s))
	if len(s.Options.DropQuality) > 0 {
		fmt.Fprintf(bw, ", or when it carries the data-quality flag %s", strings.Join(s.Options.DropQuality, " or "))
	}
	fmt.Fprintf(bw, ".\n\n| benchmark | items | kept | removed | solved | cross-source duplicates | failed | quality | screened by |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, b := range s.Benchmarks {
		fmt.Fprintf(bw, "| %s | %d | %d (%s) | %d | %d | %d | %d | %d | %s |\n", b.Benchmark, b.Items, b.Kept, share(b.Kept, b.Items), b.Removed, b.Solved, b.Duplicates, b.Failed, b.Quality, strings.Join(b.Screening, ", "))
	}
	countTable(bw, "Items left after each stage", s.Benchmarks, func(b *Summary) []Count { return b.Chain })
	countTable(bw, "Solved items by the lowest level that solves them", s.Benchmarks, func(b *Summary) []Count { return b.ByLevel })
	c := s.Consensus
	fmt.Fprintf(bw, "\n## Consensus (Video-Oasis)\n\nDiagnostic tests: %s. An item is a shortcut at c when at least c of them solve it.\n\n", strings.Join(c.Diagnostics, ", "))
	for _, set := range []struct {
		title string
		rows  []Shortcuts
	}{{"benchmark", c.Benchmarks}, {"group", c.Groups}} {
		fmt.Fprintf(bw, "| %s | items |", set.title)
		for _, t := range c.Thresholds {
			fmt.Fprintf(bw, " c >= %d |", t)
		}
		fmt.Fprintf(bw, "\n|---|---|%s\n", strings.Repeat("---|", len(c.Thresholds)))
		for _, r := range set.rows {
			fmt.Fprintf(bw, "| %s | %d |", nameOr(r.Name), r.Items)
			for k := range c.Thresholds {
				fmt.Fprintf(bw, " %d (%s) |", r.Shortcuts[k], pct(r.Ratio[k]))
			}
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "| test | total | unique |\n|---|---|---|\n")
	for _, t := range c.Tests {
		fmt.Fprintf(bw, "| %s | %d | %d |\n", t.Test, t.Total, t.Unique)
	}
	a := c.Ambiguity
	fmt.Fprintf(bw, "\n## Ambiguity flags\n\nFor review (ambiguity.parquet): consistency (the diagnostic tests' answers have no majority) %d, redundancy (solved from one arbitrary stretch of the video) %d, sensitivity (solved with the frames shuffled) %d; %d items in all.\n", a.Consistency, a.Redundancy, a.Sensitivity, a.Any)
	return bw.Flush()
}

// gatedNote says where the screening attackers screen.
func gatedNote(s *Screen) string {
	if s.Options.EveryAttacker {
		return ""
	}
	return " on a benchmark whose card finds it significantly above chance (column \"screened by\")"
}

func nameOr(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

var screenHTML = htmlpage.New("screen", template.FuncMap{
	"pct": pct, "share": share, "nameOr": nameOr, "join": strings.Join, "gatedNote": gatedNote,
	"flags": func(r *Row) string {
		var f []string
		for _, x := range []struct {
			on   bool
			name string
		}{{r.Consistency, "consistency"}, {r.Redundancy, "redundancy"}, {r.Sensitivity, "sensitivity"}} {
			if x.on {
				f = append(f, x.name)
			}
		}
		return strings.Join(f, ", ")
	},
}, `{{define "title"}}Screening of {{.S.Run}}{{end}}{{define "body"}}<h1>Screening of {{.S.Run}}</h1>
<p>Screening attackers: {{join .S.Options.Attackers ", "}}. An item is removed when one of them solves it (a model reader: margin &gt; log 2 where scored; any other: correct where scored, not a seeded guess){{gatedNote .S}}, when it duplicates an item kept from another benchmark, when its video failed{{if .S.Options.DropQuality}}, or when it carries the data-quality flag {{join .S.Options.DropQuality " or "}}{{end}}.</p>
<h2>What screening removes</h2>
<table><tr><th>benchmark</th><th>items</th><th>kept</th><th>removed</th><th>solved</th><th>cross-source duplicates</th><th>failed</th><th>quality</th><th>screened by</th></tr>
{{range .S.Benchmarks}}<tr><td>{{.Benchmark}}</td><td>{{.Items}}</td><td>{{.Kept}} ({{share .Kept .Items}})</td><td>{{.Removed}}</td><td>{{.Solved}}</td><td>{{.Duplicates}}</td><td>{{.Failed}}</td><td>{{.Quality}}</td><td>{{join .Screening ", "}}</td></tr>
{{end}}</table>
<h3>Items left after each stage</h3>
<table>{{range $i, $b := .S.Benchmarks}}{{if eq $i 0}}<tr><th>benchmark</th>{{range $b.Chain}}<th>{{.Name}}</th>{{end}}</tr>{{end}}
<tr><td>{{$b.Benchmark}}</td>{{range $b.Chain}}<td>{{.Items}}</td>{{end}}</tr>{{end}}</table>
<h3>Solved items by the lowest level that solves them</h3>
<table>{{range $i, $b := .S.Benchmarks}}{{if eq $i 0}}<tr><th>benchmark</th>{{range $b.ByLevel}}<th>{{.Name}}</th>{{end}}</tr>{{end}}
<tr><td>{{$b.Benchmark}}</td>{{range $b.ByLevel}}<td>{{.Items}}</td>{{end}}</tr>{{end}}</table>
<h2>Consensus (Video-Oasis)</h2>
<p>Diagnostic tests: {{join .S.Consensus.Diagnostics ", "}}. An item is a shortcut at c when at least c of them solve it.</p>
{{$th := .S.Consensus.Thresholds}}
{{range .Sets}}<table><tr><th>{{.Title}}</th><th>items</th>{{range $th}}<th>c &ge; {{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{nameOr .Name}}</td><td>{{.Items}}</td>{{$r := .}}{{range $k, $t := $th}}<td>{{index $r.Shortcuts $k}} ({{pct (index $r.Ratio $k)}})</td>{{end}}</tr>
{{end}}</table>
{{end}}
<table><tr><th>test</th><th>total</th><th>unique</th></tr>
{{range .S.Consensus.Tests}}<tr><td>{{.Test}}</td><td>{{.Total}}</td><td>{{.Unique}}</td></tr>
{{end}}</table>
<h2 id="ambiguity">Ambiguity flags for review</h2>
{{with .S.Consensus.Ambiguity}}<p>Consistency (the diagnostic tests' answers have no majority): {{.Consistency}}; redundancy (solved from one arbitrary stretch of the video): {{.Redundancy}}; sensitivity (solved with the frames shuffled): {{.Sensitivity}}; {{.Any}} items in all, every one in ambiguity.parquet.</p>{{end}}
{{if .Review}}<table><tr><th>benchmark</th><th>id</th><th>question</th><th>answer</th><th>flags</th><th>agreement</th><th>diagnostics solving</th></tr>
{{range .Review}}<tr><td>{{.Benchmark}}</td><td>{{.ID}}</td><td class="q">{{.Question}}</td><td>{{index .Options .Answer}}</td><td>{{flags .}}</td><td>{{pct .Agreement}}</td><td>{{.Diagnostics}}</td></tr>
{{end}}</table>{{if .More}}<p>{{.More}} more in ambiguity.parquet.</p>{{end}}{{end}}
{{end}}`)

// WriteHTML writes screen.html: what WriteMarkdown writes, and a section
// listing the ambiguous items for review (the first 500; all of them are in
// ambiguity.parquet).
func (s *Screen) WriteHTML(w io.Writer) error {
	type set struct {
		Title string
		Rows  []Shortcuts
	}
	data := struct {
		S      *Screen
		Sets   []set
		Review []*Row
		More   int
	}{S: s, Sets: []set{{"benchmark", s.Consensus.Benchmarks}, {"group", s.Consensus.Groups}}}
	for i := range s.Rows {
		r := &s.Rows[i]
		if !r.Ambiguous() || r.Answer < 0 || int(r.Answer) >= len(r.Options) {
			continue
		}
		if len(data.Review) < reviewRows {
			data.Review = append(data.Review, r)
		} else {
			data.More++
		}
	}
	return screenHTML.Execute(w, data)
}
