package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/completion"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/selection"
)

func TestSelectCommand(t *testing.T) {
	t.Parallel()
	items, run := demoAudit(t)
	dir := t.TempDir()
	// No screen yet: select screens the run itself, and says so.
	selectRelease := func(out string, args ...string) selection.Summary {
		t.Helper()
		code, stdout, stderr := runCmd(append([]string{"select", run, "--out", out, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("select %v: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(stderr, "holds no screen") {
			t.Errorf("stderr %q does not say the run was screened in passing", stderr)
		}
		var sum selection.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			t.Fatalf("summary %q: %v", stdout, err)
		}
		return sum
	}
	one := selectRelease(filepath.Join(dir, "w1"), "--budget", "24", "--seed", "5", "--workers", "1")
	three := selectRelease(filepath.Join(dir, "w3"), "--budget", "24", "--seed", "5", "--workers", "3")
	if one.Release != three.Release || !strings.HasPrefix(one.Release, "vidscreen-") {
		t.Errorf("1 worker named the release %q, 3 workers %q", one.Release, three.Release)
	}
	for _, f := range []string{release.ItemsFile, release.LockfileFile, release.ReportMarkdown, release.ReportHTML} {
		a, err := os.ReadFile(filepath.Join(dir, "w1", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "w3", f))
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between 1 and 3 workers", f)
		}
	}
	if one.Items != 24 || len(one.Rounds) == 0 || len(one.Residual) != 3 {
		t.Errorf("summary %+v", one)
	}
	// The release reads back as items of one benchmark, the release.
	got, err := harness.ReadFiles(context.Background(), []string{filepath.Join(dir, "w1", release.ItemsFile)}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 24 {
		t.Errorf("%d released items, want 24", len(got))
	}
	for _, it := range got {
		if it.Benchmark != one.Release {
			t.Errorf("item %s of benchmark %s, want %s", it.ID, it.Benchmark, one.Release)
		}
	}
	// The audit's own item files may be given back; another file is refused.
	withItems := selectRelease(filepath.Join(dir, "items"), "--budget", "24", "--seed", "5", "--items", items)
	if withItems.Items != 24 {
		t.Errorf("with --items: %+v", withItems)
	}
	if other := selectRelease(filepath.Join(dir, "s6"), "--budget", "24", "--seed", "6"); other.Release == one.Release {
		t.Errorf("seeds 5 and 6 give one name %s", one.Release)
	}
	// --videos identifies videos by content; the lockfile says how many
	// were read (here none can be: the demo's videos are not there, so
	// select refuses the root). The items' video_path comes from the item
	// files the run recorded.
	if code, _, stderr := runCmd("select", run, "--out", filepath.Join(dir, "v"), "--budget", "24", "--videos", dir); code != 2 || !strings.Contains(stderr, "no video of the pool could be read") || !strings.Contains(stderr, "--items from the run: "+items) {
		t.Errorf("--videos with no video: exit %d, %s", code, stderr)
	}
	hard := selectRelease(filepath.Join(dir, "hard"), "--hardest", "4", "--per", "benchmark")
	b, err := os.ReadFile(filepath.Join(dir, "hard", release.LockfileFile))
	if err != nil {
		t.Fatal(err)
	}
	var lock release.Lockfile
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Pool.Videos != release.VideosByID {
		t.Errorf("without --videos the lockfile says videos are identified by %q", lock.Pool.Videos)
	}
	per := map[string]int{}
	for _, it := range lock.Items {
		per[it.Source]++
	}
	for source, n := range per {
		if n != 4 && hard.Shortfall == "" {
			t.Errorf("%s: %d items of the 4 hardest, and no shortfall said", source, n)
		}
	}
	if hard.Items == 0 || lock.Release != hard.Release {
		t.Errorf("hardest: %+v", hard)
	}

	// The run with its completion record gone, as an audit killed in its
	// write stage leaves it.
	unfinished := filepath.Join(dir, "unfinished")
	if err := os.CopyFS(unfinished, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(unfinished, completion.File))
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no run", []string{"--out", dir, "--budget", "3"}, "name one run directory"},
		{"no out", []string{run, "--budget", "3"}, "--out DIR is required"},
		{"no budget", []string{run, "--out", dir}, "no budget"},
		{"a budget and a hardest count", []string{run, "--out", dir, "--budget", "3", "--hardest", "2"}, "exclude each other"},
		{"a cap with --hardest", []string{run, "--out", dir, "--hardest", "2", "--cap-video", "2"}, "--cap-video: --hardest takes K per group"},
		{"an event type with --hardest", []string{run, "--out", dir, "--hardest", "2", "--events", "group"}, "would not read --events"},
		{"--per with a budget", []string{run, "--out", dir, "--budget", "3", "--per", "task"}, "--per: --budget composes under caps"},
		{"a directory that is no run", []string{dir, "--out", dir, "--budget", "3"}, "not a finished audit"},
		{"a run whose audit did not finish", []string{unfinished, "--out", dir, "--budget", "3"}, "the audit did not finish (no complete.json"},
		{"a source the pool does not hold", []string{run, "--out", dir, "--budget", "3", "--sources", "MVBench"}, `source "MVBench": not in the screened pool`},
		{"an unknown duration group", []string{run, "--out", dir, "--budget", "3", "--durations", "2h"}, `unknown duration group "2h"`},
		{"item files the run did not audit", []string{run, "--out", dir, "--budget", "3", "--items", demoSubset(t, 5)}, "not one of the files the run audited"},
		{"a screen directory without a screen", []string{run, "--out", dir, "--budget", "3", "--screen", dir}, "screen.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"select"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.stderr)
			}
		})
	}
}
