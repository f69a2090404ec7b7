package selection_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/selection"
)

// lengths holds one clip length in each of the seven duration groups of
// Video-Index's pool/scenes.py.
var lengths = []float64{4, 20, 45, 100, 400, 1000, 2500}

// durationBenchmark writes one benchmark of 84 items, twelve in each
// duration group, each on its own video, over three tasks; a third of each
// group's questions share one template ("How many times ... clip N?").
func durationBenchmark(t *testing.T, path string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	words := strings.Fields("red blue green small large round square wooden metal glass paper old new bright dark soft")
	var b strings.Builder
	for g := range lengths {
		for k := range 12 {
			q := fmt.Sprintf("Which %s thing does the %s person hold near the %s door?", words[rng.IntN(len(words))], words[rng.IntN(len(words))], words[rng.IntN(len(words))])
			if k%3 == 0 {
				q = fmt.Sprintf("How many times does the ball bounce in clip %d?", g*12+k)
			}
			opts := make([]string, 4)
			for o := range opts {
				opts[o] = words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			}
			it := harness.Item{ID: fmt.Sprintf("d%d-%02d", g, k), Benchmark: "Lengths", Video: fmt.Sprintf("v%d-%02d", g, k),
				Question: q, Options: opts, Answer: rng.IntN(4), Task: []string{"count", "object", "action"}[k%3], Duration: &lengths[g]}
			line, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A benchmark with durations in every group goes through audit and select
// end to end: the release takes items of all seven groups, its one source
// meets no source cap (issue 33), the coverage pass gives each task an item,
// and the same spec at one and three workers writes the same bytes.
func TestSelectOneBenchmarkWithEveryDurationGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	items := filepath.Join(dir, "lengths.jsonl")
	durationBenchmark(t, items)
	ctx := context.Background()
	audit := run.DefaultSpec()
	audit.Items, audit.Levels, audit.Quiet = []string{items}, []string{"option"}, true
	audit.Out = filepath.Join(dir, "run")
	job, err := run.Open(ctx, audit, run.Env{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = job.Run(ctx)
	job.Close()
	if err != nil {
		t.Fatal(err)
	}

	spec := selection.DefaultSpec()
	spec.Run, spec.Budget, spec.Items, spec.Rounds = audit.Out, 35, []string{items}, 1
	var names []string
	var lockfiles [][]byte
	for _, workers := range []int{1, 3} {
		spec.Out, spec.Workers = filepath.Join(dir, fmt.Sprint("release", workers)), workers
		sum, err := selection.Select(ctx, spec, run.Env{})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, sum.Release)
		b, err := os.ReadFile(filepath.Join(spec.Out, "lockfile.json"))
		if err != nil {
			t.Fatal(err)
		}
		lockfiles = append(lockfiles, b)
		if sum.Items != 35 || sum.Shortfall != "" {
			t.Fatalf("%d workers: %d items (pool %d), shortfall %q; want 35", workers, sum.Items, sum.Pool, sum.Shortfall)
		}
	}
	if names[0] != names[1] || string(lockfiles[0]) != string(lockfiles[1]) {
		t.Errorf("1 and 3 workers gave %s and %s", names[0], names[1])
	}
	var l release.Lockfile
	if err := json.Unmarshal(lockfiles[0], &l); err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Relaxations {
		if r.Cap == "per_source" {
			t.Errorf("a one-source release relaxed the source cap: %+v", r)
		}
	}
	rel, err := os.ReadFile(filepath.Join(dir, "release1", "items.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	groups, tasks := map[string]int{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(rel)), "\n") {
		var it harness.Item
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatal(err)
		}
		groups[release.DurationGroup(&it)]++
		tasks[it.Task] = true
	}
	want := release.DurationGroups()[:7]
	if got := slices.Sorted(func(yield func(string) bool) {
		for g := range groups {
			if !yield(g) {
				return
			}
		}
	}); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("duration groups %v, want all seven %v", groups, want)
	}
	for g, n := range groups {
		if n < 4 || n > 6 {
			t.Errorf("duration group %s holds %d of 35 items, want 5 (one of seven turns each)", g, n)
		}
	}
	if len(tasks) != 3 {
		t.Errorf("tasks %v, want all three", tasks)
	}
}
