package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/answer"
)

// The eligibility rules of the paper (sec. 3): a benchmark is audited when
// gold answers exist for at least half its records and it has at least 30
// multiple-choice items.
const (
	minGoldShare = 0.5
	minMCItems   = 30
)

// printCheck is `import --check`: what the import would write, in figures,
// and whether the benchmark is eligible for an audit. format names the
// layout read; root, when set, is --videos.
func printCheck(w io.Writer, format string, imp *imported, root string) {
	its := imp.kept
	fmt.Fprintf(w, "items by format: %s %d\n", format, len(its))
	fmt.Fprintf(w, "records: %d (%d items, %d open-ended, %d dropped)\n", imp.sum.records, len(its), len(imp.sum.open), len(imp.sum.dropped))
	if len(its) > 0 {
		nopts := map[int]int{}
		pos := map[int]int{}
		maxOpts := 0
		var chance float64
		videos, tasks := map[string]bool{}, map[string]int{}
		for _, it := range its {
			nopts[len(it.Options)]++
			pos[it.Answer]++
			maxOpts = max(maxOpts, len(it.Options))
			chance += 1 / float64(len(it.Options))
			videos[it.Video] = true
			if it.Task != "" {
				tasks[it.Task]++
			}
		}
		fmt.Fprintf(w, "option counts: %s\n", histogram(nopts, func(k int) string { return fmt.Sprintf("%d options", k) }))
		fmt.Fprintf(w, "gold positions: %s\n", histogram(pos, func(k int) string { return answer.Letter(k) }))
		modal, modalN := 0, -1
		for k := range maxOpts {
			if pos[k] > modalN {
				modal, modalN = k, pos[k]
			}
		}
		fmt.Fprintf(w, "gold position entropy: %.3f (normalised over %d positions; 1 = uniform)\n", normEntropy(pos, len(its), maxOpts), maxOpts)
		fmt.Fprintf(w, "modal gold position: %s, %.1f%% of the items\n", answer.Letter(modal), 100*float64(modalN)/float64(len(its)))
		fmt.Fprintf(w, "chance: %.3f (the mean of 1/options)\n", chance/float64(len(its)))
		fmt.Fprintf(w, "videos: %d\n", len(videos))
		names := make([]string, 0, len(tasks))
		for t := range tasks {
			names = append(names, t)
		}
		slices.Sort(names)
		fmt.Fprintf(w, "tasks: %d", len(names))
		if len(names) > 0 {
			fmt.Fprintf(w, " (%s)", listed(names, 8))
		}
		fmt.Fprintln(w)
		if root != "" {
			found, total := resolvedVideos(root, its)
			fmt.Fprintf(w, "videos under %s: %d of %d found", root, found, total)
			if 2*found < total {
				fmt.Fprint(w, ": under half: probably the wrong video field (or the wrong --videos root)")
			}
			fmt.Fprintln(w)
		}
	}
	share := 0.0
	if imp.sum.records > 0 {
		share = float64(len(its)) / float64(imp.sum.records)
	}
	fmt.Fprintf(w, "eligible: gold answers for at least half the records: %s (%d of %d, %.1f%%)\n", passFail(share >= minGoldShare), len(its), imp.sum.records, 100*share)
	fmt.Fprintf(w, "eligible: at least %d multiple-choice items: %s (%d)\n", minMCItems, passFail(len(its) >= minMCItems), len(its))
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "fail"
}

// histogram writes counts in key order: "A 12, B 10".
func histogram(m map[int]int, name func(int) string) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", name(k), m[k])
	}
	return strings.Join(parts, ", ")
}

// normEntropy is the entropy of the gold positions over log(k), k the most
// options an item has: 1 when every position holds the gold equally often.
func normEntropy(pos map[int]int, n, k int) float64 {
	if k < 2 || n == 0 {
		return 0
	}
	var h float64
	for i := range k {
		if c := pos[i]; c > 0 {
			p := float64(c) / float64(n)
			h -= p * math.Log(p)
		}
	}
	return h / math.Log(float64(k))
}

// resolvedVideos counts the distinct videos of its found under root.
func resolvedVideos(root string, its []importedItem) (found, total int) {
	seen := map[string]bool{}
	for _, it := range its {
		if seen[it.Video] {
			continue
		}
		seen[it.Video] = true
		total++
		if _, err := harness.ResolveVideo(root, &harness.Item{Video: it.Video}); err == nil {
			found++
		}
	}
	return found, total
}
