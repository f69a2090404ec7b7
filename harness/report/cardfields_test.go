package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/world/truth"
)

// TestCardNotes: each issue-32 field of a card reads as one sentence, and a
// stage that could not run says "not run" and why.
func TestCardNotes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		card metrics.Card
		want []string
	}{
		{"none", metrics.Card{}, nil},
		{"answer check ran", metrics.Card{AnswerCheck: &metrics.AnswerCheck{Ran: true, Verifier: "vlm_reader (Qwen3-VL)", Items: 10, Asked: 9, Rechecked: 2,
			Verdicts: map[string]int{"supported": 6, "not_verifiable": 2, "contradicted": 1}, Kept: 7, Suspect: 3, Reasons: map[string]int{"supported": 6, "not_verifiable_long": 1, "not_verifiable_short": 1, "contradicted": 1, "no_verdict": 1},
			Note: "1 of 10 items have no verdict."}},
			[]string{"Answer check by vlm_reader (Qwen3-VL): 10 items, 9 asked, 2 asked again at 512 frames; verdicts contradicted 1, not_verifiable 2, supported 6; 7 kept, 3 answer_suspect; by keep rule contradicted 1, no_verdict 1, not_verifiable_long 1, not_verifiable_short 1, supported 6; 1 of 10 items have no verdict."}},
		{"answer check not run", metrics.Card{AnswerCheck: &metrics.AnswerCheck{Note: "no vlm_reader configured."}},
			[]string{"Answer check: not run: no vlm_reader configured."}},
		{"second reference not run", metrics.Card{SecondReference: &metrics.SecondReference{Note: "no second vlm_reader"}},
			[]string{"Second reference: not run: no second vlm_reader."}},
		{"second reference disagrees", metrics.Card{SecondReference: &metrics.SecondReference{Model: "m2", N: 40, Accuracy: ptr(0.6), Chance: ptr(0.25), BreakingLevel: ptr("pool"), Agree: ptr(false)}},
			[]string{"Second reference m2: s* 60.0% over 40 items (chance 25.0%); breaks at pool at delta 0.05, not the card's level."}},
		{"second reference too few", metrics.Card{SecondReference: &metrics.SecondReference{Model: "m2", N: 12, Accuracy: ptr(0.5), Chance: ptr(0.25), Note: "the second reference answered 12 items, fewer than 30: no level (the authors' minimum)"}},
			[]string{"Second reference m2: s* 50.0% over 12 items (chance 25.0%); the second reference answered 12 items, fewer than 30: no level (the authors' minimum)."}},
		{"probe and near chance", metrics.Card{ReferenceNearChance: true, BreakingLevel: map[string]*string{"0.05": ptr("option")}, ReferenceSource: &metrics.ReferenceSource{Model: "vlm_reader (Qwen3-VL)", Frames: 128, Probe: true,
			Accuracy32: ptr(0.27), N32: 50, Accuracy128: ptr(0.4), N128: 50, MeanVideoSeconds: ptr(612.4), Note: "the 32-frame s* is within 0.05 of chance on long videos."}},
			[]string{"Reference answers from vlm_reader (Qwen3-VL) at 128 frames (the 128-frame probe replaced the 32-frame protocol); 32-frame s* 27.0% over 50 items; 128-frame probe 40.0% over 50 items; videos average 612 s (the 32-frame s* is within 0.05 of chance on long videos). s* is within 0.05 of chance (reference_near_chance, Video-Index levels.py): the breaking level is the first level that ran."}},
		{"near chance, too few for a level", metrics.Card{ReferenceNearChance: true},
			[]string{"s* is within 0.05 of chance (reference_near_chance, Video-Index levels.py)."}},
		{"attribution", metrics.Card{ErrorAttribution: &metrics.ErrorAttribution{Note: "no judge role", Answered: 100, Errors: 30,
			ByTask:      []metrics.LabelShare{{Name: "a", Errors: 10, Share: 1.0 / 3}, {Name: "b", Errors: 8, Share: 0.2667}, {Name: "c", Errors: 5, Share: 0.1667}, {Name: "d", Errors: 3, Share: 0.1}, {Name: "e", Errors: 2, Share: 0.0667}, {Name: "f", Errors: 1, Share: 0.0333}, {Name: "g", Errors: 1, Share: 0.0333}},
			TopTwoShare: ptr(0.6), Leading: []string{"a"}, BlindReader: "blind-reader", BlindAnswered: 30, LanguagePrior: 4, VisionIntroduced: 9}},
			[]string{"Reference errors: 30 of 100 answered; by task a 10 (33.3%), b 8 (26.7%), c 5 (16.7%), d 3 (10.0%), e 2 (6.7%) and 2 more; the two leading tasks hold 60.0% (Video-Index: median 71%); against blind-reader (another model's text-only answers, context only) on 30 errors: 4 language-prior dominated, 9 vision-introduced. Judged attribution: not run: no judge role."}},
		{"attribution few", metrics.Card{ErrorAttribution: &metrics.ErrorAttribution{Note: "no judge role", Answered: 20, Errors: 3, Few: true, ByTask: []metrics.LabelShare{{Name: "(none)", Errors: 3, Share: 1}}, BlindIsReference: true}},
			[]string{"Reference errors: 3 of 20 answered (fewer than 20: the authors draw no profile); by task (none) 3 (100.0%). Judged attribution: not run: no judge role."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := cardNotes(tt.card)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d notes %q, want %q", len(got), got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("note %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestCardNotesReachEveryReport: the notes are in cards.md and index.html,
// the terminal's line names the suspects and the second reference, and a
// reference on fewer than 30 items reads "no level (n < 30)", not "-".
func TestCardNotesReachEveryReport(t *testing.T) {
	t.Parallel()
	c := metrics.Card{Benchmark: "B", N: 20, Chance: 0.25, ReferenceAccuracy: ptr(0.5), ReferenceN: 20,
		Levels:          metrics.Levels{Option: &metrics.LevelResult{Eps: 0.1, Attacker: "option-artifact"}},
		Unavailable:     map[string]string{"breaking_level": "the reference scored 20 of this benchmark's items, fewer than the 30 a breaking level needs"},
		AnswerCheck:     &metrics.AnswerCheck{Ran: true, Items: 20, Asked: 20, Kept: 18, Suspect: 2, Verdicts: map[string]int{"supported": 18, "contradicted": 2}, Reasons: map[string]int{"contradicted": 2, "supported": 18}},
		SecondReference: &metrics.SecondReference{Note: "no second vlm_reader"},
	}
	r := &Report{Cards: []metrics.Card{c}}
	var md, page, term bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(&term, r.Cards); err != nil {
		t.Fatal(err)
	}
	for _, note := range cardNotes(c) {
		if !strings.Contains(md.String(), note) {
			t.Errorf("cards.md lacks %q", note)
		}
		if !strings.Contains(html.UnescapeString(page.String()), note) {
			t.Errorf("index.html lacks %q", note)
		}
	}
	for name, out := range map[string]string{"cards.md": md.String(), "index.html": page.String(), "summary": term.String()} {
		if !strings.Contains(out, "no level (n &lt; 30)") && !strings.Contains(out, "no level (n < 30)") {
			t.Errorf("%s does not say the reference scored too few items for a level:\n%s", name, out)
		}
	}
	for _, want := range []string{"B: answer check 2 of 20 answer_suspect.", "second reference not run: no second vlm_reader."} {
		if !strings.Contains(strings.Join(strings.Fields(term.String()), " "), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, term.String())
		}
	}
}

// TestTooFewLine: the reports' audit of the auditor says which planted
// families are too small to test, as the terminal does, and each such
// row's verdict says so.
func TestTooFewLine(t *testing.T) {
	t.Parallel()
	text, pool := harness.LevelText, harness.LevelPool
	ev := &truth.Evaluation{Levels: []harness.Level{harness.LevelOption, text}, Planted: 2, TooFew: 1, Families: []truth.FamilyResult{
		{Family: "world-a", Expected: &text, N: 8, MinItems: 13, Verdict: "missed"},
		{Family: "world-b", Expected: &text, N: 40, MinItems: 13, Verdict: "recalled"},
		{Family: "world-c", Expected: &pool, N: 5, MinItems: 13, Verdict: "not run"},
		{Family: "world-d", N: 5, MinItems: 13, Verdict: "survived"},
	}}
	got := tooFewLine(ev)
	want := "1 of the 2 planted families have too few items to test (world-a 8 < 13): below the minimum, even an attacker right on every item is not significant"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got  %s\nwant %s...", got, want)
	}
	if v := auditorVerdict(ev.Families[0]); v != "missed (too few items to test: 8 < 13)" {
		t.Errorf("verdict %q", v)
	}
	if v := auditorVerdict(ev.Families[1]); v != "recalled" {
		t.Errorf("verdict %q", v)
	}
	if got := tooFewLine(&truth.Evaluation{Planted: 2}); got != "" {
		t.Errorf("no family too few: got %q", got)
	}
}

// TestNotRunLines: a stage that could not run for the run's reason is one
// terminal line, naming the benchmarks only when it is not all of them.
func TestNotRunLines(t *testing.T) {
	t.Parallel()
	no := &metrics.AnswerCheck{Note: "no verifier."}
	sr := &metrics.SecondReference{Note: "no second vlm_reader"}
	cards := []metrics.Card{
		{Benchmark: "A", AnswerCheck: no, SecondReference: sr},
		{Benchmark: "B", AnswerCheck: no, SecondReference: &metrics.SecondReference{Model: "m2", N: 3}},
		{Benchmark: "C", AnswerCheck: no, SecondReference: sr},
	}
	got := notRunLines(cards)
	want := []string{"answer check not run: no verifier.", "second reference not run on A, C: no second vlm_reader."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}
