package items

import (
	"regexp"
	"strings"

	"github.com/vidscreen/vidscreen/harness/answer"
)

// OptionsInQuestion recovers the options a file writes inside its question
// text (TempCompass's "...?\nA. fast\nB. slow", an lmms-eval prompt), for
// files with no option column. The options are the first run of lines
// lettered A, B, C, ... in order ("A. ", "(A) ", "A) ", "A: "), else the
// same markers inline after a space ("Is it fast? (A) yes (B) no"); at least
// two. question is the text before them, without a closing "Options:"
// line. With no such run it returns q and nil.
func OptionsInQuestion(q string) (question string, options []string) {
	if question, options = linesOptions(q); len(options) >= 2 {
		return question, options
	}
	if question, options = inlineOptions(q); len(options) >= 2 {
		return question, options
	}
	return q, nil
}

// linesOptions reads options written one per line.
func linesOptions(q string) (string, []string) {
	lines := strings.Split(strings.ReplaceAll(q, "\r\n", "\n"), "\n")
	for i := range lines {
		letter, _, _, ok := splitPrefix(lines[i])
		if !ok || letter != "A" {
			continue
		}
		var opts []string
		for j := i; j < len(lines); j++ {
			letter, _, text, ok := splitPrefix(lines[j])
			if !ok || letter != answer.Letter(len(opts)) {
				break
			}
			opts = append(opts, text)
		}
		if len(opts) < 2 {
			continue
		}
		return questionBefore(lines[:i]), opts
	}
	return "", nil
}

// questionBefore joins the lines before the options, dropping blank lines
// and a last "Options:" line.
func questionBefore(lines []string) string {
	var keep []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if n := len(keep); n > 0 && strings.EqualFold(strings.TrimSuffix(keep[n-1], ":"), "options") {
		keep = keep[:n-1]
	}
	return strings.Join(keep, "\n")
}

// inlineMarker is an option letter inside a line: "(A) " or "A. " after
// the start or a space.
var inlineMarker = regexp.MustCompile(`(?:^|\s)(?:\(([A-P])\)|([A-P])[.):])\s+`)

// inlineOptions reads options written on one line, each marker the next
// letter in order and in the form of the first.
func inlineOptions(q string) (string, []string) {
	marks := inlineMarker.FindAllStringSubmatchIndex(q, -1)
	for s, m := range marks {
		if letterOf(q, m) != "A" {
			continue
		}
		paren := m[2] >= 0
		run := [][]int{m}
		for _, n := range marks[s+1:] {
			if (n[2] >= 0) == paren && letterOf(q, n) == answer.Letter(len(run)) {
				run = append(run, n)
			}
		}
		if len(run) < 2 {
			continue
		}
		opts := make([]string, len(run))
		for k, r := range run {
			end := len(q)
			if k+1 < len(run) {
				end = run[k+1][0]
			}
			opts[k] = strings.TrimSpace(q[r[1]:end])
			if opts[k] == "" {
				return "", nil
			}
		}
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q[:m[0]]), "Options:")), opts
	}
	return "", nil
}

func letterOf(q string, m []int) string {
	if m[2] >= 0 {
		return q[m[2]:m[3]]
	}
	return q[m[4]:m[5]]
}
