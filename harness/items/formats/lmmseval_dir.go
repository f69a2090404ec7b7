package formats

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// samplesFile is the name of a samples log lmms-eval writes under its
// --output_path: <YYYYmmdd_HHMMSS>_samples_<task>.jsonl (v0.2.4 on) or
// samples_<task>_<ISO time>.jsonl (v0.2.3).
var samplesFile = regexp.MustCompile(`(?:^|_)samples_.+\.jsonl$`)

// LMMSEvalSamples lists the samples logs under dir, lmms-eval's
// --output_path (it writes them into a folder per model:
// <output_path>/<model>/<time>_samples_<task>.jsonl), in path order.
func LMMSEvalSamples(ctx context.Context, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() && samplesFile.MatchString(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// IsLMMSEvalResults says whether the file at path is the aggregated
// <time>_results.json lmms-eval writes beside the samples: scores, not
// samples.
func IsLMMSEvalResults(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	st, err := os.Stat(path)
	if err != nil || st.IsDir() || st.Size() > 64<<20 {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && isResultsObject(b)
}
