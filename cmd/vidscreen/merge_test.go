package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/completion"
	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// shardAndMerge runs the audit of args as n shards, each into its own
// directory under tmp, then merges them into tmp/merged-n; it returns the
// merged directory, the shard directories and merge's stderr.
func shardAndMerge(t *testing.T, tmp string, n int, args ...string) (merged string, shards []string, stderr string) {
	t.Helper()
	for i := 0; i < n; i++ {
		dir := filepath.Join(tmp, fmt.Sprintf("shard-%d-of-%d", i, n))
		code, stdout, errOut := runAudit(append(args, "--out", dir, "--shard", fmt.Sprintf("%d/%d", i, n), "--quiet")...)
		if code != 0 {
			t.Fatalf("shard %d/%d: exit %d\n%s", i, n, code, errOut)
		}
		if !strings.Contains(stdout, fmt.Sprintf("shard %d/%d:", i, n)) {
			t.Errorf("shard %d/%d summary: %q", i, n, stdout)
		}
		if _, err := os.Stat(filepath.Join(dir, rundir.CardsJSON)); err == nil {
			t.Errorf("shard %d/%d wrote cards", i, n)
		}
		shards = append(shards, dir)
	}
	merged = filepath.Join(tmp, fmt.Sprintf("merged-%d", n))
	// The shards are given in reverse order: merge sorts them by index.
	margs := []string{"merge"}
	for i := n - 1; i >= 0; i-- {
		margs = append(margs, shards[i])
	}
	margs = append(margs, "--out", merged, "--log-format", "json")
	code, _, stderr := runCmd(margs...)
	if code != 0 {
		t.Fatalf("merge of %d shards: exit %d\n%s", n, code, stderr)
	}
	return merged, shards, stderr
}

// sameRun compares every output a run writes (outputs) between the
// unsharded audit and a merge; a file absent from both (the frame
// embeddings of a run without the video levels) is no difference.
func sameRun(t *testing.T, whole, merged, what string) {
	t.Helper()
	for _, name := range outputs {
		x, err1 := os.ReadFile(filepath.Join(whole, name))
		y, err2 := os.ReadFile(filepath.Join(merged, name))
		switch {
		case os.IsNotExist(err1) && os.IsNotExist(err2):
		case err1 != nil || err2 != nil || string(x) != string(y):
			t.Errorf("%s differs %s (%v, %v)", name, what, err1, err2)
		}
	}
}

// shardItems checks that the shards' shard.json name their places in the
// split and that their items add up to the whole audit's.
func shardItems(t *testing.T, shards []string) {
	t.Helper()
	total, of, busy := 0, 0, 0
	for i, dir := range shards {
		s, err := runs.ReadShard(dir)
		if err != nil {
			t.Fatal(err)
		}
		if s.Shard != i || s.Shards != len(shards) {
			t.Errorf("%s: shard %d/%d, want %d/%d", dir, s.Shard, s.Shards, i, len(shards))
		}
		total += s.Items
		of = s.Of
		if s.Items > 0 {
			busy++
		}
		t.Logf("shard %d/%d: %d items, videos %v", s.Shard, s.Shards, s.Items, s.Videos)
	}
	// The fixtures spread over enough videos that every shard has work.
	if busy < len(shards) {
		t.Errorf("%d shards: only %d have items", len(shards), busy)
	}
	if total != of || of == 0 {
		t.Errorf("%d shards hold %d items, want the audit's %d", len(shards), total, of)
	}
}

func TestMergeTextLevels(t *testing.T) {
	t.Parallel()
	items, whole := demoAudit(t)
	mergesMatchTheWholeAudit(t, t.TempDir(), []string{"--items", items}, whole)
}

func TestMergeVideoLevels(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixtureCopy(t) // copies of short.webm and the items are written below
	tmp := t.TempDir()
	// The fixture's two decodable videos hash to one shard; copies of the
	// short one under other names spread decodable videos over the shards.
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	short, err := os.ReadFile(filepath.Join(root, "short.webm"))
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	lines := strings.SplitAfter(string(b), "\n")
	for k, line := range lines {
		if strings.Contains(line, `"video_path":"short.webm"`) {
			name := fmt.Sprintf("short-%d.webm", copies)
			copies++
			os.WriteFile(filepath.Join(root, name), short, 0o644)
			lines[k] = strings.Replace(line, `"short.webm"`, `"`+name+`"`, 1)
		}
	}
	if copies == 0 {
		t.Fatalf("no item of %s reads short.webm", items)
	}
	os.WriteFile(items, []byte(strings.Join(lines, "")), 0o644)
	args := []string{"--items", items, "--videos", root, "--models", modelsDir}
	for n, merged := range mergesMatchTheWholeAudit(t, tmp, args, "") {
		var st struct{ Stages []rundir.StageRate }
		b, _ := os.ReadFile(filepath.Join(merged, rundir.StagesFile))
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		for _, s := range st.Stages {
			if s.Name == "inference" && s.Units != 0 {
				t.Errorf("merge of %d shards embedded %d frames", n, s.Units)
			}
		}
	}

	// A shard resumes in its own directory: run again, it computes nothing.
	dir := filepath.Join(tmp, "shard-1-of-2")
	before, _ := os.ReadFile(filepath.Join(dir, rundir.ShardFile))
	code, _, stderr := runAudit(append(args, "--out", dir, "--shard", "1/2", "--log-format", "json")...)
	if code != 0 {
		t.Fatalf("shard 1/2 again: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, `"computed":0`) {
		t.Errorf("shard 1/2 run again computed features:\n%s", stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, rundir.ShardFile))
	if string(before) != string(after) {
		t.Errorf("shard.json changed on resume:\n%s\n%s", before, after)
	}
}

// TestMergeWorld shards the audit of generated videos at all five levels.
func TestMergeWorld(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := worldFixture(t)
	tmp := t.TempDir()
	args := []string{"--items", items, "--videos", root, "--models", modelsDir}
	mergesMatchTheWholeAudit(t, tmp, args, worldAudit(t))
}

// mergesMatchTheWholeAudit audits args unsharded (unless whole names that
// audit's run already), then split into 1, 2 and 3 shards and merged: each
// merge must write the unsharded outputs, each shard hold its own items,
// and the merge decode nothing again (every decodable video was done by
// its shard). It returns the merged run directories by shard count.
func mergesMatchTheWholeAudit(t *testing.T, tmp string, args []string, whole string) map[int]string {
	t.Helper()
	if whole == "" {
		whole = filepath.Join(tmp, "whole")
		if code, _, stderr := runAudit(append(args, "--out", whole, "--quiet")...); code != 0 {
			t.Fatalf("unsharded audit: exit %d\n%s", code, stderr)
		}
	}
	out := map[int]string{}
	for _, n := range []int{1, 2, 3} {
		merged, shards, stderr := shardAndMerge(t, tmp, n, args...)
		sameRun(t, whole, merged, fmt.Sprintf("between the unsharded audit and the merge of %d shards", n))
		shardItems(t, shards)
		if strings.Contains(stderr, "computed here") {
			t.Errorf("merge of %d shards computed features:\n%s", n, stderr)
		}
		out[n] = merged
	}
	return out
}

func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 20)
	other := demoSubset(t, 21)
	tmp := t.TempDir()
	shard := func(name, spec, items string) string {
		dir := filepath.Join(tmp, name)
		if code, _, stderr := runAudit("--items", items, "--out", dir, "--shard", spec, "--quiet"); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", spec, code, stderr)
		}
		return dir
	}
	a0, a1 := shard("a0", "0/2", items), shard("a1", "1/2", items)
	b1 := shard("b1", "1/2", other)
	c0 := shard("c0", "0/3", items)
	unfinished := filepath.Join(tmp, "unfinished")
	os.MkdirAll(unfinished, 0o755)
	// A shard whose audit stopped before its completion record.
	cut := shard("cut", "1/2", items)
	os.Remove(filepath.Join(cut, completion.File))
	whole := filepath.Join(tmp, "whole")
	if code, _, stderr := runAudit("--items", items, "--out", whole, "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no shards", []string{"--out", filepath.Join(tmp, "m")}, 2, "name the shard run directories"},
		{"no --out", []string{a0, a1}, 2, "--out DIR is required"},
		{"missing shard", []string{"--out", filepath.Join(tmp, "m"), a0}, 2, "shards 1/2 missing"},
		{"shard twice", []string{"--out", filepath.Join(tmp, "m"), a0, a0, a1}, 2, "given twice"},
		{"other split", []string{"--out", filepath.Join(tmp, "m"), a0, a1, c0}, 2, "3-way split"},
		{"other audit", []string{"--out", filepath.Join(tmp, "m"), a0, b1}, 2, "made by another audit"},
		{"not a shard", []string{"--out", filepath.Join(tmp, "m"), a0, unfinished}, 2, "no shard.json"},
		{"unsharded run", []string{"--out", filepath.Join(tmp, "m"), whole}, 2, "no shard.json"},
		{"unfinished shard", []string{"--out", filepath.Join(tmp, "m"), a0, cut}, 2, "the audit did not finish"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(append([]string{"merge"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.stderr)
			}
			if _, err := os.Stat(filepath.Join(tmp, "m")); err == nil {
				t.Errorf("a refused merge created its --out")
			}
		})
	}
	for _, bad := range []string{"2/2", "-1/2", "1", "a/b", "0/0"} {
		if code, _, stderr := runAudit("--items", items, "--out", filepath.Join(tmp, "bad"), "--shard", bad); code != 2 || !strings.Contains(stderr, "--shard") {
			t.Errorf("--shard %s: exit %d, %q; want 2 naming --shard", bad, code, stderr)
		}
	}
	// A shard's directory is not the whole audit's: the same flags without
	// --shard are refused there.
	if code, _, stderr := runAudit("--items", items, "--out", a0, "--quiet"); code != 2 || !strings.Contains(stderr, "shard") {
		t.Errorf("unsharded audit into a shard directory: exit %d, %q; want 2 naming the shard", code, stderr)
	}
}

// TestMergeAcceptsARelativeVideoRoot shards an audit whose --videos is
// relative to the working directory: the shards record the root as an
// absolute path for merge, so config.json must keep one form of it, or
// merge refuses every shard as "a shard of another audit ([video_root]
// differ)". The merge must write the unsharded audit's outputs, whether
// that audit named the root relatively or absolutely.
func TestMergeAcceptsARelativeVideoRoot(t *testing.T) {
	t.Parallel()
	_, world, _ := worldFixture(t)
	tmp := t.TempDir()
	// Relative to the test's working directory (a chdir would also move
	// the ONNX Runtime library the tests find under .cache).
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, world)
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"--items", filepath.Join(world, "items.jsonl"), "--models", filepath.Join(world, "models"), "--levels", "option,frame"}
	whole := filepath.Join(tmp, "whole-absolute")
	if code, _, stderr := runAudit(append(common, "--videos", world, "--out", whole, "--quiet")...); code != 0 {
		t.Fatalf("audit with an absolute --videos: exit %d\n%s", code, stderr)
	}
	wholeRel := filepath.Join(tmp, "whole-relative")
	if code, _, stderr := runAudit(append(common, "--videos", rel, "--out", wholeRel, "--quiet")...); code != 0 {
		t.Fatalf("audit with a relative --videos: exit %d\n%s", code, stderr)
	}
	sameRun(t, whole, wholeRel, "between audits naming the video root absolutely and relatively")
	merged, _, _ := shardAndMerge(t, tmp, 2, append(common, "--videos", rel)...)
	sameRun(t, whole, merged, "between the unsharded audit and the merge of shards given a relative --videos")
}
