package harness

import (
	"regexp"
	"slices"
	"strings"
)

// YesNoReason is why a yes/no item is set aside: the Video-Index authors'
// pool marks such an item format = yesno and removes it as format_yesno
// (pool/schema.py), and their audit counts it in no statistic
// (audit/chance.py, is_mcq_item).
const YesNoReason = "format_yesno"

// YesNoRule describes IsYesNo, for config.json and the docs.
const YesNoRule = "items whose options are only yes/no or true/false, letter prefix, case and trailing full stops ignored (Video-Index audit/chance.py is_mcq_item, pool/schema.py format_yesno)"

// YesNoSetAside and YesNoKept are config.json's yes_no: what an audit did
// with the bare yes/no items, by default and with --keep-yesno.
const (
	YesNoSetAside = "set aside before the audit: " + YesNoRule
	YesNoKept     = "kept (--keep-yesno): audited as two-option questions, chance 0.5, and kept by screening"
)

// yesNoPrefix is the authors' option-letter prefix ("A. ", "(b) ",
// "[C]", "d:"): one letter and a closing mark, the spaces after it.
var yesNoPrefix = regexp.MustCompile(`^\s*[\(\[]?[A-Za-z][\)\]\.:]\s*`)

// yesNoWords are the option texts of a bare yes/no pair.
var yesNoWords = []string{"yes", "no", "true", "false"}

// IsYesNo reports whether options are a bare yes/no pair, by the Video-Index
// authors' rule (audit/chance.py _yes_no_options, pool/schema.py
// yes_no_options): each option with its letter prefix cut, white space
// trimmed, lower-cased and trailing full stops cut is one of yes, no, true
// and false. Order and repeats do not matter ("No", "Yes" is a pair;
// "True", "no" too); any other word, punctuation other than a trailing
// full stop ("Yes!"), or white space before that full stop ("yes .")
// makes the item multiple-choice. No options is not a pair.
func IsYesNo(options []string) bool {
	if len(options) == 0 {
		return false
	}
	for _, o := range options {
		t := yesNoPrefix.ReplaceAllString(o, "")
		t = strings.TrimRight(strings.ToLower(strings.TrimSpace(t)), ".")
		if !slices.Contains(yesNoWords, t) {
			return false
		}
	}
	return true
}

// YesNo reports whether the item's options are a bare yes/no pair
// (IsYesNo).
func (it *Item) YesNo() bool { return IsYesNo(it.Options) }

// A SetAside counts the items of one benchmark that were set aside before
// the audit, and why.
type SetAside struct {
	Benchmark string
	// Of is the number of the benchmark's items read; YesNo how many of
	// them were set aside as yes/no pairs (YesNoReason).
	Of, YesNo int
}

// Only reports whether every item of the benchmark was set aside.
func (s SetAside) Only() bool { return s.Of > 0 && s.YesNo == s.Of }

// SetAsideYesNo takes the yes/no items out of items (IsYesNo), as the
// Video-Index authors keep them out of every audit statistic and of the
// pool. It returns the rest in their order and, sorted by benchmark, a
// count for each benchmark that had any.
func SetAsideYesNo(items []*Item) (kept []*Item, aside []SetAside) {
	of := map[string]int{}
	yn := map[string]int{}
	for _, it := range items {
		of[it.Benchmark]++
		if it.YesNo() {
			yn[it.Benchmark]++
			continue
		}
		kept = append(kept, it)
	}
	for b, n := range yn {
		aside = append(aside, SetAside{Benchmark: b, Of: of[b], YesNo: n})
	}
	slices.SortFunc(aside, func(x, y SetAside) int { return strings.Compare(x.Benchmark, y.Benchmark) })
	return kept, aside
}
