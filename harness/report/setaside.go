package report

import (
	"fmt"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// chanceCell is a card's chance in the overview tables: "yes/no only"
// for a card whose items were all set aside (metrics.Card.YesNoOnly),
// which has no chance.
func chanceCell(c metrics.Card) string {
	if c.YesNoOnly {
		return "yes/no only"
	}
	return pct(c.Chance)
}

// beforeAudit says what left a benchmark before the audit, as a sentence
// of its card ("" when nothing did or nothing is known): the bare yes/no
// items set aside (format_yesno) and the duplicates removed before the
// audit (harness.DedupRule), the name cards.json gives them too.
func beforeAudit(c metrics.Card) string {
	s := ""
	if n := c.SetAside[harness.YesNoReason]; n > 0 {
		if c.YesNoOnly {
			s = fmt.Sprintf("Every one of its %d items is a bare yes/no pair, set aside before the audit (%s, as the Video-Index authors count them in no statistic): no multiple-choice figures; --keep-yesno audits them as two-option questions.", n, harness.YesNoReason)
		} else {
			s = fmt.Sprintf("%d bare yes/no items set aside before the audit (%s).", n, harness.YesNoReason)
		}
	}
	if c.DuplicatesRemoved != nil {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("Duplicates removed before the audit: %d.", *c.DuplicatesRemoved)
	}
	return s
}
