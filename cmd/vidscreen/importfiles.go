package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vidscreen/vidscreen/harness/items/formats"
)

// importFiles turns import's FILE arguments into the files read, in
// order: a quoted glob becomes the files it matches (in name order), a
// directory (lmms-eval's --output_path) the samples logs under it, and
// lmms-eval's aggregated results.json a usage error naming the samples
// logs beside it. One directory holding two runs of a task (two models'
// folders, or two times) is refused: their ids would clash.
func importFiles(ctx context.Context, args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		paths := []string{a}
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			// A file whose name holds a bracket is itself, not a pattern.
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, &usageError{fmt.Sprintf("%s: %v", a, err)}
			}
			if len(m) == 0 {
				return nil, &usageError{fmt.Sprintf("%s: no file matches", a)}
			}
			paths = m
		}
		for _, p := range paths {
			st, err := os.Stat(p)
			switch {
			case err != nil:
				out = append(out, p) // the reader names the error
			case st.IsDir():
				logs, err := samplesUnder(ctx, p)
				if err != nil {
					return nil, err
				}
				out = append(out, logs...)
			case formats.IsLMMSEvalResults(p):
				return nil, resultsFileError(ctx, p)
			default:
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// samplesUnder are the samples logs of one lmms-eval run under dir.
func samplesUnder(ctx context.Context, dir string) ([]string, error) {
	logs, err := formats.LMMSEvalSamples(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadInput, err)
	}
	if len(logs) == 0 {
		return nil, &usageError{fmt.Sprintf("%s: a directory holding no lmms-eval samples log (<time>_samples_<task>.jsonl, written with --log_samples): name the file to import", dir)}
	}
	seen := map[string]string{}
	for _, l := range logs {
		task := formats.TaskName(l)
		if prev, dup := seen[task]; dup {
			return nil, &usageError{fmt.Sprintf("%s holds two samples logs of task %s (%s and %s): two runs, whose items would clash; name the one to import", dir, task, prev, l)}
		}
		seen[task] = l
	}
	return logs, nil
}

// resultsFileError says to give the samples log beside an aggregated
// results file, naming the ones there are.
func resultsFileError(ctx context.Context, path string) error {
	msg := fmt.Sprintf("%s: lmms-eval's aggregated results (scores, not samples): give the samples log beside it (<time>_samples_<task>.jsonl, written with --log_samples)", path)
	if logs, err := formats.LMMSEvalSamples(ctx, filepath.Dir(path)); err == nil && len(logs) > 0 {
		msg += "; beside it: " + strings.Join(logs, ", ")
	}
	return &usageError{msg}
}
