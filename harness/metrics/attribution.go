package metrics

import (
	"fmt"
	"math"
	"slices"

	"github.com/vidscreen/vidscreen/harness"
)

// AttributionMinErrors is the authors' floor of a benchmark's profile
// (Video-Index 4.4: "the 76 pool-level survivors with at least 20 agreed
// attributions").
const AttributionMinErrors = 20

// ErrorAttribution is what a card can say, from the audit's records alone,
// of where the reference's 32-frame errors fall (Video-Index 4.4; the
// authors' audit/attribution). The authors' attribution asks two judge
// models to name, per error, one of 18 fine categories from the frames,
// the gold and wrong answers and the reference's reasoning; vidscreen has
// no judge role and stores no reasoning, so that step does not run (Judged
// is false and Note says so). What runs: the error profile over the items'
// own task and group labels (the capability the item claims, not the
// cause a judge would name), the share of the two most frequent labels
// (the paper's median 71%) and the leading labels counting ties; and the
// authors' two pre-classification rules (attribution/preclass.py) against
// the blind reader's answer in the original option order: rule 1,
// language_prior_dominated, the blind reader wrong with the reference's
// very wrong option; rule 2, vision_introduced_error, the blind reader
// right where the reference is wrong. The authors apply the rules only to
// the erring model's own text-only run: BlindIsReference says whether the
// blind reader is the reference's model, and where it is not the counts are
// context, as the authors show another model's text-only answer to the
// judges.
type ErrorAttribution struct {
	Judged bool   `json:"judged"`
	Note   string `json:"note"`
	// Answered counts the items the reference answered, Errors those it
	// answered wrongly; Few is true below AttributionMinErrors errors, where
	// the authors draw no profile.
	Answered int  `json:"answered"`
	Errors   int  `json:"errors"`
	Few      bool `json:"few,omitempty"`
	// ByTask and ByGroup are the errors per item label, most first (ties by
	// name), with their share of Errors; items without a label count under
	// "(none)".
	ByTask  []LabelShare `json:"by_task"`
	ByGroup []LabelShare `json:"by_group,omitempty"`
	// TopTwoShare is the share of Errors in the two most frequent task
	// labels; Leading names the most frequent, ties included.
	TopTwoShare *float64 `json:"top_two_share"`
	Leading     []string `json:"leading"`
	// The pre-classification rules, on the errors the blind reader
	// answered (BlindAnswered of Errors).
	BlindReader      string `json:"blind_reader,omitempty"`
	BlindIsReference bool   `json:"blind_is_reference"`
	BlindAnswered    int    `json:"blind_answered"`
	LanguagePrior    int    `json:"language_prior_dominated"`
	VisionIntroduced int    `json:"vision_introduced_error"`
}

// A LabelShare is a number of errors under one label and its share.
type LabelShare struct {
	Name   string  `json:"name"`
	Errors int     `json:"errors"`
	Share  float64 `json:"share"`
}

// attributionNote is ErrorAttribution.Note.
const attributionNote = "the authors' per-error judgement (two judge models naming one of 18 fine categories from the frames and the reference's reasoning) does not run: vidscreen has no judge role; the profile is over the items' own task and group labels"

// ErrorAttributions computes each benchmark's ErrorAttribution from the
// reference's answers (option index by item key), the attackers' item
// scores (ItemScores) and the name of the blind reader whose answers the
// rules read; sameModel says whether that reader is the reference's model.
// A benchmark the reference answered nothing of has none.
func ErrorAttributions(items []*harness.Item, ref map[string]int, scores []ItemScore, blind string, sameModel bool) map[string]*ErrorAttribution {
	blindChoice := map[int]int{}
	for _, s := range scores {
		if s.Attacker == blind && s.Scored && !s.Abstained {
			blindChoice[s.Item] = s.Choice
		}
	}
	type tally struct {
		a            *ErrorAttribution
		task, group  map[string]int
		groupLabeled bool
	}
	per := map[string]*tally{}
	for i, it := range items {
		p, ok := ref[it.Key()]
		if !ok || p < 0 || p >= len(it.Options) {
			continue
		}
		t := per[it.Benchmark]
		if t == nil {
			t = &tally{a: &ErrorAttribution{Note: attributionNote, BlindReader: blind, BlindIsReference: sameModel}, task: map[string]int{}, group: map[string]int{}}
			per[it.Benchmark] = t
		}
		t.a.Answered++
		if p == it.Answer {
			continue
		}
		t.a.Errors++
		t.task[label(it.Task)]++
		t.group[label(it.Group)]++
		t.groupLabeled = t.groupLabeled || it.Group != ""
		b, ok := blindChoice[i]
		if !ok {
			continue
		}
		t.a.BlindAnswered++
		switch {
		case b == it.Answer:
			t.a.VisionIntroduced++
		case b == p:
			t.a.LanguagePrior++
		}
	}
	out := map[string]*ErrorAttribution{}
	for name, t := range per {
		a := t.a
		a.Few = a.Errors < AttributionMinErrors
		a.ByTask = shares(t.task, a.Errors)
		if t.groupLabeled {
			a.ByGroup = shares(t.group, a.Errors)
		}
		a.Leading = []string{}
		if a.Errors > 0 {
			top := a.ByTask[0].Errors
			if len(a.ByTask) > 1 {
				top += a.ByTask[1].Errors
			}
			a.TopTwoShare = roundPtr(float64(top) / float64(a.Errors))
			for _, l := range a.ByTask {
				if l.Errors == a.ByTask[0].Errors {
					a.Leading = append(a.Leading, l.Name)
				}
			}
		}
		if blind == "" {
			a.Note += "; the rules do not run: the run has no blind reader"
		} else if !sameModel {
			a.Note += fmt.Sprintf("; the rules read %s, another model than the reference's: context only, as the authors apply them to the erring model's own text-only run", blind)
		}
		out[name] = a
	}
	return out
}

// label names an item label for the profile.
func label(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// shares orders the counts most first, ties by name, with their share of n.
func shares(counts map[string]int, n int) []LabelShare {
	out := make([]LabelShare, 0, len(counts))
	for k, c := range counts {
		out = append(out, LabelShare{Name: k, Errors: c, Share: math.Round(float64(c)/float64(n)*1e4) / 1e4})
	}
	slices.SortFunc(out, func(a, b LabelShare) int {
		if a.Errors != b.Errors {
			return b.Errors - a.Errors
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// WithErrorAttributions puts each benchmark's ErrorAttribution on its card.
func WithErrorAttributions(cards []Card, by map[string]*ErrorAttribution) {
	for k := range cards {
		cards[k].ErrorAttribution = by[cards[k].Benchmark]
	}
}
