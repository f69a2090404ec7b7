package htmlpage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
)

// A Layout is what a browser measured of a page at one window width: the
// document's and the body's scroll width against the window's inner width,
// the elements that reach past the window's right edge, and the boxes that
// scroll sideways inside the page (a wide table in its own scroller).
type Layout struct {
	Width           int      `json:"width"`
	InnerWidth      int      `json:"innerWidth"`
	ScrollWidth     int      `json:"scrollWidth"`
	BodyScrollWidth int      `json:"bodyScrollWidth"`
	Overflowing     []string `json:"overflowing"`
	ScrollBoxes     []string `json:"scrollBoxes"`
}

// ScrollsSideways reports whether the page itself scrolls sideways: the
// issue's test, document.body.scrollWidth > window.innerWidth, or any
// element past the window's right edge.
func (l *Layout) ScrollsSideways() bool {
	return l.BodyScrollWidth > l.InnerWidth || l.ScrollWidth > l.InnerWidth || len(l.Overflowing) > 0
}

// measureScript runs after the page's body has been parsed and laid out
// and writes the measurement into the DOM, where --dump-dom returns it: the
// pages hold no script of their own, so this is the only one.
const measureScript = `<script>(function(){var W=window.innerWidth,d=document.documentElement,over=[],boxes=[];
function name(e){var s=e.tagName.toLowerCase();if(e.id)s+='#'+e.id;if(typeof e.className==='string'&&e.className)s+='.'+e.className.split(' ').join('.');var t=(e.textContent||'').trim().slice(0,40);return s+(t?' "'+t+'"':'');}
function clipped(e){for(var a=e.parentElement;a&&a!==document.body;a=a.parentElement){var o=getComputedStyle(a).overflowX;if(o!=='visible')return true;}return false;}
document.querySelectorAll('body *').forEach(function(e){var r=e.getBoundingClientRect();
if(r.width>0&&r.right>W+0.5&&!clipped(e)&&over.length<20)over.push(name(e)+' right='+Math.round(r.right));
var cs=getComputedStyle(e);if((cs.overflowX==='auto'||cs.overflowX==='scroll')&&e.scrollWidth>e.clientWidth+1&&boxes.length<20)boxes.push(name(e)+' '+e.scrollWidth+'>'+e.clientWidth);});
var p=document.createElement('pre');p.id='vidscreen-layout';p.textContent=JSON.stringify({innerWidth:W,scrollWidth:d.scrollWidth,bodyScrollWidth:document.body.scrollWidth,overflowing:over,scrollBoxes:boxes});document.body.appendChild(p);})();</script>`

var layoutRE = regexp.MustCompile(`(?s)<pre id="vidscreen-layout">(.*?)</pre>`)

// ErrNoChromium is returned by Measure when no Chromium is installed.
var ErrNoChromium = errors.New("no chromium or chromium-browser on PATH (Debian: apt-get install chromium)")

// Chromium returns the path of the headless browser Measure runs, or
// ErrNoChromium.
func Chromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// Measure loads page in headless Chromium with a window width px wide
// and returns its layout. The page is written with the measuring script to
// a temporary directory; nothing else is loaded.
func Measure(ctx context.Context, page []byte, width int) (*Layout, error) {
	bin, err := Chromium()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "vidscreen-layout-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return nil, fmt.Errorf("measure: the page has no </body>")
	}
	withScript := append(append(append([]byte{}, page[:i]...), measureScript...), page[i:]...)
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, withScript, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--disable-gpu", "--no-sandbox",
		"--no-first-run", "--hide-scrollbars", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size="+strconv.Itoa(width)+",2000", "--dump-dom", "file://"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("measure: %s: %w: %s", bin, err, lastLine(stderr.String()))
	}
	m := layoutRE.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("measure: %s wrote no measurement (the script did not run): %s", bin, lastLine(stderr.String()))
	}
	l := &Layout{Width: width}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), l); err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	return l, nil
}

func lastLine(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.LastIndexByte([]byte(s), '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
