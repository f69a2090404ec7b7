package export

import (
	"fmt"
	"strings"
)

// A metric is one accuracy the tasks report: over every item (Group "",
// All true) or over one capability group's.
type metric struct {
	Name  string // the metric's key in process_results' record and metric_list
	Group string
	All   bool
}

// AccuracyMetric is the metric over every item.
const AccuracyMetric = "accuracy"

// metrics are the accuracy over all items, then one per capability group
// (accuracy_<group> with the group's name made a Python identifier; a
// second group that would take a name already taken gets _2, _3...).
func metrics(groups []string) []metric {
	out := []metric{{Name: AccuracyMetric, All: true}}
	taken := map[string]bool{AccuracyMetric: true}
	for _, g := range groups {
		base := AccuracyMetric + "_" + identifier(g)
		name := base
		for n := 2; taken[name]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		taken[name] = true
		out = append(out, metric{Name: name, Group: g})
	}
	return out
}

// identifier lower-cases s and turns every run of characters other than
// ASCII letters and digits into one underscore.
func identifier(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		out = "group"
	}
	return out
}

// TaskPrefix is the name of the release's lmms-eval group and the prefix of
// its tasks: the release name with every character outside letters, digits
// and _ made _ ("vidscreen-0123abcd" gives "vidscreen_0123abcd").
func TaskPrefix(release string) string {
	var b strings.Builder
	for _, r := range release {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
