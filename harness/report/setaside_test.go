package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
)

// TestYesNoOnlyCardSaysSo: a benchmark whose items were all set aside as
// bare yes/no pairs gets a card that says so in cards.md, index.html and
// the terminal summary, in place of multiple-choice figures; a card with
// some set aside and duplicates removed says both, by the names cards.json
// uses.
func TestYesNoOnlyCardSaysSo(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	two := 2
	r.Cards[0].SetAside = map[string]int{harness.YesNoReason: 3}
	r.Cards[0].DuplicatesRemoved = &two
	r.Cards = metrics.WithSetAside(r.Cards, []harness.SetAside{{Benchmark: "YesNoBench", Of: 976, YesNo: 976}})
	var md, html, sum bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaryWidth(&sum, r.Cards, 200); err != nil {
		t.Fatal(err)
	}
	only := "Every one of its 976 items is a bare yes/no pair, set aside before the audit (format_yesno"
	for name, out := range map[string]string{"cards.md": md.String(), "index.html": html.String()} {
		if !strings.Contains(out, only) {
			t.Errorf("%s does not say YesNoBench is yes/no only", name)
		}
		if !strings.Contains(out, "3 bare yes/no items set aside before the audit (format_yesno). Duplicates removed before the audit: 2.") {
			t.Errorf("%s does not count Social-IQ-2.0's items set aside and duplicates removed", name)
		}
	}
	if !strings.Contains(md.String(), "| YesNoBench | 0 | yes/no only |") {
		t.Errorf("cards.md overview row of YesNoBench:\n%s", md.String())
	}
	// The yes/no-only section has no attacker table.
	sec := md.String()[strings.Index(md.String(), "## YesNoBench"):]
	if strings.Contains(sec, "| attacker |") {
		t.Errorf("YesNoBench section has an attacker table:\n%s", sec)
	}
	if !strings.Contains(sum.String(), "yes/no only") {
		t.Errorf("summary:\n%s", sum.String())
	}
}
