// Package htmlpage is the one look of every page vidscreen writes: the
// audit's index.html (harness/report), screen.html (harness/screen), a
// release's report.html (harness/release) and VidOmni's index.html
// (harness/vidomni). A page supplies its title and body as templates; New
// wraps them in the shared head and stylesheet, so the four pages cannot
// drift apart in style and a fix to the look is made once.
//
// The pages stay self-contained (inline CSS and SVG, no script, no external
// asset): a reader opens the file anywhere, offline.
package htmlpage
