package screen

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// screen.html shows the first reviewShown ambiguous items, folds the rest
// under "more" and names ambiguity.parquet for all of them; its text
// columns are marked as text (left-aligned by the shared style) and every
// consensus table says what it holds.
func TestHTMLPagesTheAmbiguousItems(t *testing.T) {
	t.Parallel()
	s, err := Compute(consensusFixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := s.Rows[0]
	base.Options = []string{"left", "right"}
	base.Answer = 1
	base.Consistency = true
	s.Rows = nil
	const n = 108
	for i := range n {
		r := base
		r.ID = fmt.Sprintf("q%03d", i)
		s.Rows = append(s.Rows, r)
	}
	var b bytes.Buffer
	if err := s.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	review := page[strings.Index(page, `id="ambiguity"`):]
	shown, folded, ok := strings.Cut(review, "<details>")
	if !ok {
		t.Fatal("the items past the first are not folded under <details>")
	}
	if got := strings.Count(shown, `<td class="text">q`); got != reviewShown {
		t.Errorf("%d items shown, want %d", got, reviewShown)
	}
	if got := strings.Count(folded, `<td class="text">q`); got != n-reviewShown {
		t.Errorf("%d items folded, want %d", got, n-reviewShown)
	}
	if !strings.Contains(folded, fmt.Sprintf("<summary>%d more</summary>", n-reviewShown)) || !strings.Contains(shown, `<a href="ambiguity.parquet">`) {
		t.Error("the page does not say how many more there are and where all of them are")
	}
	if !strings.Contains(review, `<td class="text">right</td>`) {
		t.Error("the answer column is not marked as text")
	}
	if got := strings.Count(page, "<caption>"); got < 3 {
		t.Errorf("%d table captions, want the tests, each set and the per-test counts captioned", got)
	}
}
