package main

import (
	"flag"
	"fmt"
	"strings"
)

// flagSynonyms maps a name a user of lmms-eval, VLMEvalKit or another
// command-line tool types to vidscreen's names for the same thing, best
// first: edit distance cannot see that --tasks means --benchmarks.
var flagSynonyms = map[string][]string{
	"tasks":        {"benchmarks", "benchmark"},
	"task":         {"benchmarks", "benchmark"},
	"data":         {"benchmarks", "benchmark", "items"},
	"dataset":      {"benchmarks", "benchmark", "items"},
	"datasets":     {"benchmarks", "benchmark"},
	"output":       {"out"},
	"output-path":  {"out"},
	"output_path":  {"out"},
	"output-dir":   {"out"},
	"outdir":       {"out"},
	"model":        {"models", "server-model"},
	"model-dir":    {"models"},
	"jobs":         {"workers", "threads"},
	"j":            {"workers", "threads"},
	"num-workers":  {"workers"},
	"input":        {"items"},
	"samples":      {"items", "sample"},
	"video-dir":    {"videos", "video-root"},
	"video-folder": {"videos", "video-root"},
	"n":            {"budget", "limit"},
	"k":            {"budget"},
	"size":         {"budget"},
	"silent":       {"quiet"},
	"random-seed":  {"seed"},
	"attacks":      {"attackers"},
	"attack":       {"attackers"},
	"level":        {"levels"},
}

// suggestFlag returns the flag of fs a user most likely meant by the
// unknown name, or "" when none is close: first a synonym fs defines, then
// the only flag the name is a prefix of, then the nearest name by edit
// distance when it is within a third of the name's length (at least 2),
// ties broken by name so the suggestion is the same every run.
func suggestFlag(fs *flag.FlagSet, name string) string {
	name = strings.TrimLeft(name, "-")
	for _, s := range flagSynonyms[strings.ToLower(name)] {
		if s != name && fs.Lookup(s) != nil {
			return s
		}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) }) // sorted by name
	var prefixed []string
	for _, n := range names {
		if len(name) >= 2 && strings.HasPrefix(n, name) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestD := "", -1
	for _, n := range names {
		d := editDistance(strings.ToLower(name), n)
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	limit := len([]rune(name)) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD < 0 || bestD > limit || bestD >= len([]rune(name)) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, counting an
// insertion, a deletion, a substitution and (Damerau) a swap of two
// neighbours each as one edit: "--wokrers" is one slip from --workers.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// flagErrorText rewrites an error of fs.Parse as one line in the README's
// spelling (--name, not -name), naming the closest flag for an unknown one:
// the flag package's own text ("flag provided but not defined: -tasks")
// neither suggests nor spells flags as the help does.
func flagErrorText(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	const undefined = "flag provided but not defined: "
	if rest, ok := strings.CutPrefix(msg, undefined); ok {
		name := strings.TrimLeft(rest, "-")
		text := fmt.Sprintf("unknown flag --%s", name)
		if s := suggestFlag(fs, name); s != "" {
			text += fmt.Sprintf("; did you mean --%s?", s)
		}
		return text
	}
	// "invalid value "x" for flag -seed: parse error" and
	// "flag needs an argument: -items" name the flag with one dash.
	msg = strings.Replace(msg, "for flag -", "for flag --", 1)
	msg = strings.Replace(msg, "needs an argument: -", "needs an argument: --", 1)
	return msg
}
