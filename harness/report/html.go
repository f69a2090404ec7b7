package report

import (
	"fmt"
	"html/template"
	"io"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/htmlpage"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// WriteHTML writes index.html: one self-contained page (inline CSS and SVG,
// no script, no external asset) with, per benchmark, its figures, the level
// profile and the learning curves of the prequential attackers.
func (r *Report) WriteHTML(w io.Writer) error {
	type section struct {
		Card    metrics.Card
		Profile template.HTML
		Curves  template.HTML
	}
	var data struct {
		Version  string
		Levels   []harness.Level
		Cards    []metrics.Card
		Sections []section
		Auditor  *truth.Evaluation
		// AnyReference is true when some card has s*: otherwise "needs a
		// reference" is said once, not on every card.
		AnyReference bool
	}
	data.Version = r.Version
	data.Levels = levelsRun(r.Cards)
	data.Cards = r.Cards
	data.Auditor = truth.EvaluateCards(r.Cards)
	for _, c := range r.Cards {
		data.AnyReference = data.AnyReference || c.ReferenceAccuracy != nil
	}
	for _, c := range r.Cards {
		s := section{Card: c, Profile: template.HTML(levelProfileSVG(c))}
		if svg, ok := learningCurvesSVG(c); ok {
			s.Curves = template.HTML(svg)
		}
		data.Sections = append(data.Sections, s)
	}
	return page.Execute(w, data)
}

var page = htmlpage.New("index", template.FuncMap{
	"pct": pct, "signed": signedPct, "optPct": optPct, "optInt": optInt, "level": levelCell,
	"breaking": breaking, "yesNo": yesNo, "deref": func(x *float64) float64 { return *x },
	"lv": levelName, "acc": auditorAccuracy,
	"at":  func(c metrics.Card, l harness.Level) *metrics.LevelResult { return c.Levels.At(l) },
	"ref": refCell, "unavailable": unavailable, "quality": quality,
	"cell": cardLevelCell, "sig": significantCell, "notRun": notRunList, "servedList": servedList,
	"warnings": FailureWarnings, "retention": RetentionSummary, "hidden": hiddenInTasks,
	"abstainedAll": func(a metrics.AttackerResult) bool { return a.AbstainShare >= 1 },
	"cardNotes":    cardNotes, "tooFew": tooFewLine,
	"chance": chanceCell, "beforeAudit": beforeAudit,
}, `{{define "title"}}vidscreen audit{{end}}{{define "body"}}<h1>vidscreen audit</h1>
{{if .Version}}<p>vidscreen {{.Version}}</p>{{end}}
<p>How far the attackers of each level of the attack pyramid get on each benchmark without what the level withholds
(option: the options alone; text: question and options; pool: other items' answers too; frame: single frames or
captions; order: frames without their order). <b>eps</b> is the exploitability of a level: the
largest margin over chance of any attacker at or below it (Video-Index, section 2). A margin is significant when an
exact one-sided test against each item's own chance rejects at 0.05 after Holm's correction over the benchmark's
attackers (an abstention counts as chance); <span class="ns">ns</span> marks one that is not, and "not significant after
correction" one that passes alone only. The papers' threshold 2.326&#8239;&radic;(c(1&minus;c)/n) is on each card
for comparison with the published tables. With reference answers, a
benchmark breaks at the first level whose eps reaches s*&nbsp;&minus;&nbsp;c&nbsp;&minus;&nbsp;&delta;. Every item is scored
once over the five rotating splits, so n is the number of items. Attackers that learn from the pool read other items'
gold answers (pool access by Video-Index's definition), whatever their level.</p>
<table>
<tr><th>benchmark</th><th>n</th><th>chance</th>{{range .Levels}}<th>eps {{.}}</th>{{end}}<th>s*</th><th>breaks at (&delta; 0.05)</th><th>near-dup share</th><th>cross-benchmark dups</th><th class="text">hidden in tasks</th></tr>
{{$levels := .Levels}}{{range .Cards}}{{$c := .}}<tr><td><a href="#{{.Benchmark}}">{{.Benchmark}}</a></td><td>{{.N}}</td><td>{{chance .}}</td>{{range $levels}}<td>{{cell $c .}}</td>{{end}}<td>{{ref .}}</td><td>{{breaking . "0.05"}}</td><td>{{optPct .NearDuplicateShare}}</td><td>{{optInt .CrossBenchmarkDuplicates}}</td><td class="text">{{with hidden .}}<b>{{.}}</b>{{else}}-{{end}}</td></tr>
{{end}}</table>
<p class="note"><b>hidden in tasks</b>: tasks whose eps is significant at a level where the benchmark's overall eps is not (the
whole benchmark can look clean while a task of it is solved without the video); their rows are in the benchmark's
"By task" table. {{if not .AnyReference}}s* and the breaking level need a reference model's answers (<code>--reference</code>
or <code>--reference-model</code>); this audit had none.{{end}}</p>
{{range warnings .Cards}}<p class="warn"><b>Warning:</b> {{.}}.</p>
{{end}}<p>{{retention .Cards}}</p>
{{with .Auditor}}<section id="auditor">
<h2>Audit of the auditor</h2>
<p>The world-* benchmarks are rendered by <code>vidscreen world</code> with a known shortcut per family
(docs/world.md). A family is caught at the first level whose eps is significant; caught at its expected level
it is recalled, caught below it (or at all where nothing was planted) it is a false alarm.
Recall of planted shortcuts at their level: <b>{{.Recalled}}/{{.Planted}}</b>; false alarms: <b>{{.FalseAlarms}}</b>;
levels run: {{range $i, $l := .Levels}}{{if $i}}, {{end}}{{$l}}{{end}}.</p>
<table>
<tr><th>family</th><th>expected level</th><th>caught at</th><th>by</th><th>accuracy there</th><th>chance</th><th>n</th><th>verdict</th></tr>
{{range .Families}}<tr{{if eq .Verdict "false alarm"}} class="alarm"{{else if eq .Verdict "missed"}} class="flag"{{end}}><td><a href="#{{.Benchmark}}">{{.Family}}</a></td><td>{{lv .Expected}}</td><td>{{lv .Caught}}</td><td>{{if .Caught}}{{.Attacker}}{{else}}-{{end}}</td><td>{{acc .}}</td><td>{{pct .Chance}}</td><td>{{.N}}</td><td class="text">{{if eq .Verdict "false alarm"}}<b>false alarm</b>{{else}}{{.Verdict}}{{end}}{{if .Guessed}} (the attacker only guessed){{end}}</td></tr>
{{end}}</table>
<p class="note">Rows shaded red are false alarms: a family caught below its expected level, or caught where nothing was planted.</p>
{{with tooFew .}}<p class="warn">{{.}}</p>
{{end}}</section>
{{end}}{{range .Sections}}{{$c := .Card}}<section id="{{$c.Benchmark}}">
<h2>{{$c.Benchmark}}</h2>
{{if $c.YesNoOnly}}<p>{{beforeAudit $c}}</p>{{else}}<p>{{with beforeAudit $c}}{{.}} {{end}}{{$c.N}} items{{if $c.Sample}} (a sample of {{$c.Sample.Of}}: {{$c.Sample.Method}}){{end}}, chance {{pct $c.Chance}}, the papers' significance threshold {{pct $c.Significance}}{{if $c.Embedder}}; texts embedded by {{$c.Embedder}}{{end}}.{{with notRun $c}} Not run: {{.}}.{{end}}{{with servedList $c.ServedReaders}} Served readers: {{.}}.{{end}}
{{if $c.ReferenceAccuracy}}Reference accuracy s* {{ref $c}} ({{$c.ReferenceN}} items); breaking level {{breaking $c "0.03"}} / {{breaking $c "0.05"}} / {{breaking $c "0.08"}} at &delta; 0.03 / 0.05 / 0.08{{if $c.VideoDependence}}; video dependence m = s* &minus; {{$c.VideoDependenceReader}} accuracy = {{signed (deref $c.VideoDependence)}}{{end}}{{if $c.Residual}}; residual {{signed (deref $c.Residual)}}{{end}}.
{{end}}
{{if and $c.Unavailable $.AnyReference}}Not available: {{unavailable $c.Unavailable}}.{{end}}
{{if $c.DataQuality}}Data quality: {{quality $c.DataQuality}}.{{end}}
{{if $c.NearDuplicateShare}}Near-duplicate questions: {{optPct $c.NearDuplicateShare}} of items within the benchmark, {{optInt $c.CrossBenchmarkDuplicates}} items with one in another benchmark{{if $c.SharedVideoItems}}, {{optInt $c.SharedVideoItems}} items using a video another benchmark uses{{if $c.SharedVideosBy}} (videos matched by {{$c.SharedVideosBy}}){{end}}{{end}}.{{end}}</p>
{{range cardNotes $c}}<p>{{.}}</p>
{{end}}<div class="charts">
<figure>{{.Profile}}<figcaption>Level profile: eps per level (red: significant). The dashed lines mark the significance threshold{{if $c.ReferenceAccuracy}} and s*&nbsp;&minus;&nbsp;c: a bar reaching it breaks the benchmark{{end}}.</figcaption></figure>
{{if .Curves}}<figure>{{.Curves}}<figcaption>Learning curves: accuracy per tenth of each seeded order, averaged over orders{{if $c.ALC}}; ALC of the strongest pool attacker ({{$c.ALCAttacker}}) {{printf "%.3f" (deref $c.ALC)}}{{end}}.</figcaption></figure>{{end}}
</div>
<table>
<tr><th>attacker</th><th>level</th><th>learns from pool</th><th>accuracy</th><th>95% interval</th><th>margin</th><th>p</th><th>significant</th><th>n</th><th>orders</th><th>abstained</th><th>solved</th></tr>
{{range $c.Attackers}}<tr{{if abstainedAll .}} class="flag"{{end}}><td>{{.Name}}{{if abstainedAll .}} <b>(abstained on every item)</b>{{end}}</td><td>{{.Level}}</td><td>{{yesNo .LearnsFromPool}}</td><td>{{pct .Accuracy}}</td><td>{{pct .CILow}} &ndash; {{pct .CIHigh}}</td><td>{{signed .Margin}}</td><td>{{printf "%.3g" .PValue}}</td><td>{{sig .}}</td><td>{{.N}}</td><td>{{.Orders}}</td><td>{{pct .AbstainShare}}</td><td>{{pct .SolvedShare}}</td></tr>
{{end}}</table>
<dl class="legend">
<dt>learns from pool</dt><dd>the attacker reads other items' gold answers (the pool), whatever its level.</dd>
<dt>p</dt><dd>the exact one-sided p-value of the attacker's correct answers against each item's own chance; significant after Holm's correction over the benchmark's attackers.</dd>
<dt>n</dt><dd>items scored; a learning attacker is scored once per item over the five rotating splits.</dd>
<dt>orders</dt><dd>the seeded item orders the attacker answered in (learning attackers; 1 for the others).</dd>
<dt>abstained</dt><dd>the share of answers that were seeded guesses (no text, no frames, a failed video); at 100% the accuracy is chance by construction and says nothing.</dd>
<dt>solved</dt><dd>the share of the benchmark's items the attacker answered correctly where scored (items.parquet's <code>&lt;attacker&gt;_solved</code>).</dd>
</dl>
{{if $c.Tasks}}<h3>By task</h3>
<table>
<tr><th>task</th><th>n</th><th>chance</th>{{range $.Levels}}<th>eps {{.}}</th>{{end}}</tr>
{{range $c.Tasks}}{{$b := .}}<tr><td>{{.Name}}</td><td>{{.N}}</td><td>{{pct .Chance}}</td>{{range $.Levels}}<td>{{level ($b.Levels.At .)}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if $c.Groups}}<h3>By group</h3>
<table>
<tr><th>group</th><th>n</th><th>chance</th>{{range $.Levels}}<th>eps {{.}}</th>{{end}}</tr>
{{range $c.Groups}}{{$b := .}}<tr><td>{{.Name}}</td><td>{{.N}}</td><td>{{pct .Chance}}</td>{{range $.Levels}}<td>{{level ($b.Levels.At .)}}</td>{{end}}</tr>
{{end}}</table>{{end}}{{if $c.Durations}}
<h3>By duration category</h3>
<table>
<tr><th>duration category</th><th>n</th><th>chance</th>{{range $.Levels}}<th>eps {{.}}</th>{{end}}</tr>
{{range $c.Durations}}{{$b := .}}<tr><td>{{.Name}}</td><td>{{.N}}</td><td>{{pct .Chance}}</td>{{range $.Levels}}<td>{{level ($b.Levels.At .)}}</td>{{end}}</tr>
{{end}}</table>{{end}}{{end}}
</section>
{{end}}{{end}}`)

func levelName(l *harness.Level) string {
	if l == nil {
		return "none"
	}
	return l.String()
}

func auditorAccuracy(r truth.FamilyResult) string {
	if r.Caught == nil {
		return "-"
	}
	return pct(r.Accuracy)
}

// hiddenInTasks names what the overview would hide: the tasks of c whose eps
// is significant at a level where c's own eps is not, as "2 tasks up to
// +50.0% (text)"; "" when there are none.
func hiddenInTasks(c metrics.Card) string {
	n, best, at := 0, 0.0, ""
	for _, t := range c.Tasks {
		hidden := false
		for _, l := range harness.Levels() {
			tl, cl := t.Levels.At(l), c.Levels.At(l)
			if tl == nil || !tl.Significant || cl != nil && cl.Significant {
				continue
			}
			hidden = true
			if tl.Eps > best {
				best, at = tl.Eps, l.String()
			}
		}
		if hidden {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	noun := "tasks"
	if n == 1 {
		noun = "task"
	}
	return fmt.Sprintf("%d %s up to %s (%s)", n, noun, signedPct(best), at)
}
