// Package demo holds the embedded default of vidscreen audit: a subset of
// real annotations of four video question-answering benchmarks (NExT-QA,
// Social-IQ 2.0, VideoHallucer, STAR), about a thousand items each, with
// their licence notices (data/README.md). It lets a user see a whole audit,
// and CI exercise one, without any download.
package demo

import (
	"embed"
	"io/fs"
)

//go:embed data/*.jsonl data/README.md
var data embed.FS

// FS returns the embedded files; Items names the item files in it.
func FS() fs.FS {
	sub, err := fs.Sub(data, "data")
	if err != nil {
		panic(err) // "data" is a literal directory of the embed pattern
	}
	return sub
}

// Items lists the embedded item files in the order they are audited.
func Items() []string {
	return []string{"nextqa.jsonl", "socialiq2.jsonl", "star.jsonl", "videohallucer.jsonl"}
}

// Notice returns the licence notice of the embedded annotations.
func Notice() string {
	b, err := fs.ReadFile(data, "data/README.md")
	if err != nil {
		panic(err)
	}
	return string(b)
}
