package selection

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/run"
)

// TestSayUnreadNamesItems: the terminal names each item a model reader
// could not read and why, not only how many (issue 33.1.5).
func TestSayUnreadNamesItems(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	it := &harness.Item{ID: "q1", Benchmark: "world-copy", Video: "w0000"}
	why := unreadReason(root, it)
	if !strings.Contains(why, "w0000") {
		t.Errorf("reason %q does not name the video", why)
	}
	r := &modelReaders{unread: maxUnreadNamed + 2, items: 40}
	for k := range maxUnreadNamed + 2 {
		r.why = append(r.why, fmt.Sprintf("%s world-copy/q%d: %s", FullVideoReader, k, why))
	}
	var b strings.Builder
	r.sayUnread(root, run.Env{Stderr: &b})
	out := b.String()
	for _, want := range []string{"could not read 22 of the 40 items", "world-copy/q0: " + why, "world-copy/q19: ", "and 2 more"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "world-copy/q20:") {
		t.Errorf("stderr names more than %d items:\n%s", maxUnreadNamed, out)
	}
}
