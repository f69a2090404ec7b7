package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vidscreen/vidscreen/harness/htmlpage"
)

// Every HTML report fits the window in headless Chromium at 1400 and 800
// px: document.body.scrollWidth <= window.innerWidth and no element past
// the right edge (issue 33, 3.5). At 1400 px no table scrolls in its own
// box either; at 800 px one that must is logged.
func TestReportsFitInChromium(t *testing.T) {
	if _, err := htmlpage.Chromium(); errors.Is(err, htmlpage.ErrNoChromium) {
		if os.Getenv("VIDSCREEN_REQUIRE_REFERENCE") == "1" {
			t.Fatalf("VIDSCREEN_REQUIRE_REFERENCE=1: %v", err)
		}
		t.Skip(err)
	}
	t.Parallel()
	_, demo := demoAudit(t)
	run := filepath.Join(t.TempDir(), "run")
	copyTree(t, demo, run)
	if code, _, errOut := runCmd("screen", run); code != 0 {
		t.Fatalf("screen: exit %d: %s", code, errOut)
	}
	rel := filepath.Join(t.TempDir(), "rel")
	if code, _, errOut := runCmd("select", run, "--out", rel, "--budget", "40"); code != 0 {
		t.Fatalf("select: exit %d: %s", code, errOut)
	}
	vo := t.TempDir()
	td := filepath.Join("..", "..", "harness", "vidomni", "testdata")
	if code, _, errOut := runCmd("vidomni", "score", "--labels", filepath.Join(td, "labels.jsonl"), "--verdicts", filepath.Join(td, "verdicts.jsonl"), "--out", vo); code != 0 {
		t.Fatalf("vidomni score: exit %d: %s", code, errOut)
	}
	pages := map[string]string{
		"audit index.html":   filepath.Join(demo, "index.html"),
		"screen screen.html": filepath.Join(run, "screen", "screen.html"),
		"select report.html": filepath.Join(rel, "report.html"),
		"vidomni index.html": filepath.Join(vo, "index.html"),
	}
	for name, path := range pages {
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{1400, 800} {
			l, err := htmlpage.Measure(context.Background(), page, width)
			if err != nil {
				t.Fatalf("%s at %d px: %v", name, width, err)
			}
			if l.ScrollsSideways() {
				t.Errorf("%s at %d px scrolls sideways: body %d px in a %d px window; past the edge: %q", name, width, l.BodyScrollWidth, l.InnerWidth, l.Overflowing)
			}
			switch {
			case len(l.ScrollBoxes) > 0 && width >= 1400:
				t.Errorf("%s at %d px: tables scroll sideways inside the page: %q", name, width, l.ScrollBoxes)
			case len(l.ScrollBoxes) > 0:
				t.Logf("%s at %d px: boxes that scroll inside the page: %q", name, width, l.ScrollBoxes)
			}
		}
	}
}
