package htmlpage

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// needChromium skips the test without a browser, unless
// VIDSCREEN_REQUIRE_REFERENCE=1 asks that every reference check run.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := Chromium(); errors.Is(err, ErrNoChromium) {
		if os.Getenv("VIDSCREEN_REQUIRE_REFERENCE") == "1" {
			t.Fatalf("VIDSCREEN_REQUIRE_REFERENCE=1: %v", err)
		}
		t.Skip(err)
	}
}

// Measure tells a page that fits from one that scrolls sideways, and
// names what sticks out.
func TestMeasure(t *testing.T) {
	needChromium(t)
	t.Parallel()
	page := func(body string) []byte {
		return []byte("<!doctype html><html><head><style>" + Style + "</style></head><body>" + body + "</body></html>")
	}
	fits, err := Measure(context.Background(), page("<p>"+strings.Repeat("word ", 400)+"</p>"), 800)
	if err != nil {
		t.Fatal(err)
	}
	if fits.InnerWidth != 800 || fits.ScrollsSideways() {
		t.Errorf("a paragraph of words at 800 px: %+v, want inner width 800 and no sideways scroll", fits)
	}
	wide, err := Measure(context.Background(), page(`<div id="wide" style="width:1200px;max-width:none">x</div>`), 800)
	if err != nil {
		t.Fatal(err)
	}
	if !wide.ScrollsSideways() || len(wide.Overflowing) == 0 || !strings.Contains(wide.Overflowing[0], "div#wide") {
		t.Errorf("a 1200 px div at 800 px: %+v, want it named as overflowing", wide)
	}
}
