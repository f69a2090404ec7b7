package harness

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// MaxOptions is the largest number of options an item may have: option
// letters run from A to P (docs/audit.md, answer parsing).
const MaxOptions = 16

// MaxTextBytes bounds each text field of an item (id, benchmark, video,
// question, task, group, video_path and each option): 64 KiB, over 60
// times the longest question (524 bytes) and option (1,029 bytes) of the
// four development benchmarks. What an item costs grows with its text (the
// lexical embedder holds about 16 hashed n-gram bytes per text byte, each
// model's tokenizer a token per few bytes): one 10 MB question, which
// MaxLineBytes admits, cost the audit 1.0 GB; at this bound an item costs
// a few megabytes at most.
const MaxTextBytes = 64 << 10

// check validates the decoded item it against the rules every reader applies
// (docs/audit.md, Items), returning the offending field and the reason. Duplicate
// ids are checked across files by ReadFiles, not here.
func (it *Item) check(videoRoot string) (field string, err error) {
	for _, f := range []struct {
		name, v string
	}{{"id", it.ID}, {"benchmark", it.Benchmark}, {"video", it.Video}, {"question", it.Question}} {
		if strings.TrimSpace(f.v) == "" {
			return f.name, fieldError(ErrEmptyField, "%s must not be empty", f.name)
		}
	}
	for _, f := range []struct {
		name, v string
	}{{"id", it.ID}, {"benchmark", it.Benchmark}, {"video", it.Video}, {"question", it.Question}, {"task", it.Task}, {"duration_category", it.DurationCategory}, {"group", it.Group}, {"video_path", it.VideoPath}} {
		if len(f.v) > MaxTextBytes {
			return f.name, fieldError(ErrTooLarge, "%s holds %d bytes, more than %d (MaxTextBytes)", f.name, len(f.v), MaxTextBytes)
		}
	}
	for i, o := range it.Options {
		if len(o) > MaxTextBytes {
			return fmt.Sprintf("options[%d]", i), fieldError(ErrTooLarge, "option %d holds %d bytes, more than %d (MaxTextBytes)", i, len(o), MaxTextBytes)
		}
	}
	switch n := len(it.Options); {
	case n < 2:
		return "options", fieldError(ErrTooFewOptions, "got %d", n)
	case n > MaxOptions:
		return "options", fieldError(ErrTooManyOptions, "got %d", n)
	}
	// Empty, repeated, letter-prefixed and meta options are quirks of real
	// benchmarks, not errors: they become data-quality flags.
	it.Quality = qualityOf(it.Options)
	if it.Answer < 0 || it.Answer >= len(it.Options) {
		return "answer", fieldError(ErrAnswerRange, "%d is not an index into %d options (answers are 0-based)", it.Answer, len(it.Options))
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"duration", it.Duration}, {"start", it.Start}, {"end", it.End}} {
		switch {
		case f.v == nil:
		case math.IsNaN(*f.v) || math.IsInf(*f.v, 0):
			return f.name, fieldError(ErrBadValue, "%s %g is not a finite number", f.name, *f.v)
		case *f.v < 0:
			return f.name, fieldError(ErrBadValue, "negative %s %g", f.name, *f.v)
		}
	}
	// A clip holds the frames of [start, end): an empty one has none to
	// sample, and failed the other items of its video when decoded.
	if it.End != nil && it.Start != nil && *it.End < *it.Start {
		return "end", fieldError(ErrBadValue, "end %g before start %g", *it.End, *it.Start)
	}
	if it.End != nil && it.Start != nil && *it.End == *it.Start {
		return "end", fieldError(ErrBadValue, "end %g equals start: an empty clip (give end > start, or neither for the whole video)", *it.End)
	}
	if it.End != nil && it.Start == nil && *it.End == 0 {
		return "end", fieldError(ErrBadValue, "end 0 with no start: an empty clip (give end > start, or neither for the whole video)")
	}
	if it.VideoPath != "" && videoRoot != "" {
		if err := checkVideoPath(it.VideoPath, videoRoot); err != nil {
			return "video_path", err
		}
	}
	return "", nil
}

// checkVideoPath refuses a video_path that would resolve outside the video
// root: absolute paths, "..", and (when the root is known and the file
// exists) symbolic links that leave it. Paths use forward slashes, as in the
// annotation files, whatever the operating system.
func checkVideoPath(p, root string) error {
	local := filepath.FromSlash(p)
	if !filepath.IsLocal(local) {
		return fieldError(ErrVideoPathEscape, "%q must be a relative path inside --video-root", p)
	}
	if root == "" {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		// A missing root is reported by whoever opens the videos; the
		// lexical check above already holds.
		return nil
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, local))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fieldError(ErrBadValue, "%q: %v", p, err)
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || !filepath.IsLocal(rel) {
		return fieldError(ErrVideoPathEscape, "%q resolves to %s, outside --video-root %s", p, real, root)
	}
	return nil
}
