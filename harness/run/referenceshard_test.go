package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/internal/checksum"
)

// TestMergedProbeReadsTheShardsFiles: a merge reads each probed item's
// 128-frame scores from its own shard's ProbeFile, -Inf included, and
// which its shard's server failed; a file of another model, or a score
// that is not a number, is a *ShardError naming the shard, the file and
// the field.
func TestMergedProbeReadsTheShardsFiles(t *testing.T) {
	t.Parallel()
	var items []*harness.Item
	for i := range 6 {
		items = append(items, &harness.Item{ID: fmt.Sprint(i), Benchmark: "B", Video: fmt.Sprintf("v%d.mp4", i), Options: []string{"a", "b"}})
	}
	const shards = 2
	write := func(t *testing.T, tmp string, edit func(shard int, rec *probeRecord)) []string {
		var dirs []string
		for s := range shards {
			dir := filepath.Join(tmp, fmt.Sprintf("shard-%d", s))
			os.MkdirAll(dir, 0o755)
			b, _ := json.Marshal(ShardSummary{Shard: s, Shards: shards})
			os.WriteFile(filepath.Join(dir, "shard.json"), b, 0o644)
			rec := probeRecord{Frames: ProbeFrames, Model: "vlm_reader:tiny", Benchmarks: []string{"B"}}
			for i, it := range items {
				if VideoShard("", it, shards) != s {
					continue
				}
				e := probeEntry{Key: it.Key(), Scores: []string{"-Inf", fmt.Sprint(-float64(i) / 10)}}
				if i == 3 {
					e = probeEntry{Key: it.Key(), Failed: true}
				}
				rec.Items = append(rec.Items, e)
			}
			if edit != nil {
				edit(s, &rec)
			}
			b, _ = json.Marshal(rec)
			if err := checksum.Write(filepath.Join(dir, ProbeFile), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
				t.Fatal(err)
			}
			dirs = append([]string{dir}, dirs...) // last shard first
		}
		return dirs
	}
	merge := func(dirs []string) *audit {
		return &audit{opt: Options{Merge: dirs, Video: &VideoModels{VLMName: "tiny"}}, items: items}
	}
	idx := []int{0, 1, 2, 3, 4, 5}

	a := merge(write(t, t.TempDir(), nil))
	s128, failed, err := a.mergedProbe(context.Background(), idx)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range idx {
		switch {
		case i == 3:
			if !failed[k] || s128[k] != nil {
				t.Errorf("item 3: scores %v, failed %v; want its shard's server failure", s128[k], failed[k])
			}
		case failed[k] || len(s128[k]) != 2 || !math.IsInf(s128[k][0], -1) || s128[k][1] != -float64(i)/10:
			t.Errorf("item %d: scores %v, failed %v; want [-Inf %v]", i, s128[k], failed[k], -float64(i)/10)
		}
	}

	for _, tc := range []struct {
		name, field string
		edit        func(shard int, rec *probeRecord)
	}{
		{"another model", "model", func(_ int, rec *probeRecord) { rec.Model = "vlm_reader:other" }},
		{"a score that is no number", "scores[1]", func(_ int, rec *probeRecord) {
			for k := range rec.Items {
				if len(rec.Items[k].Scores) > 0 {
					rec.Items[k].Scores[1] = "abc"
					return
				}
			}
		}},
	} {
		_, _, err := merge(write(t, t.TempDir(), tc.edit)).mergedProbe(context.Background(), idx)
		var se *ShardError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), ProbeFile) || !strings.Contains(err.Error(), tc.field) || !strings.Contains(se.Dir, "shard-") {
			t.Errorf("%s: %v, want a ShardError naming the shard, %s and %s", tc.name, err, ProbeFile, tc.field)
		}
	}
}
