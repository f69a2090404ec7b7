package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditRecomputesADamagedCacheFile flips one byte of a cached video's
// frame embeddings and runs the audit again in the same directory: the
// damage must be found by the file's checksum, said on stderr and counted
// in run.json, and the outputs must be those of the undamaged run (the
// flipped byte once changed mean_frame.npy with exit 0 and no word).
func TestAuditRecomputesADamagedCacheFile(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := worldFixture(t)
	tmp := t.TempDir()
	args := []string{"--items", items, "--videos", root, "--models", modelsDir, "--levels", "option,frame"}
	dir, first := filepath.Join(tmp, "run"), filepath.Join(tmp, "first")
	if code, _, stderr := runAudit(append(args, "--out", dir, "--quiet")...); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	if err := os.CopyFS(first, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	npys, _ := filepath.Glob(filepath.Join(dir, rundir.CacheDir, "video-*.npy"))
	if len(npys) == 0 {
		t.Fatal("no video-*.npy in the cache")
	}
	b, err := os.ReadFile(npys[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-3] ^= 0x40 // the exponent of the last embedding value
	os.WriteFile(npys[0], b, 0o644)

	code, _, stderr := runAudit(append(args, "--out", dir, "--log-format", "json")...)
	if code != 0 {
		t.Fatalf("audit again: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "changed after it was written") || !strings.Contains(stderr, filepath.Base(npys[0])) {
		t.Errorf("stderr does not name the damaged file %s:\n%s", filepath.Base(npys[0]), stderr)
	}
	var info struct {
		Damaged *int `json:"cache_files_damaged"`
	}
	rb, _ := os.ReadFile(filepath.Join(dir, rundir.RunJSON))
	if err := json.Unmarshal(rb, &info); err != nil || info.Damaged == nil || *info.Damaged != 1 {
		t.Errorf("run.json cache_files_damaged = %v (%v); want 1\n%s", info.Damaged, err, rb)
	}
	sameRun(t, first, dir, "after a damaged cache file was computed again")
	if got, _ := os.ReadFile(npys[0]); string(got) == string(b) {
		t.Errorf("the damaged cache file was not rewritten")
	}
}

// TestAuditAfterAVideoChangesMatchesAFreshAudit audits, changes a video,
// and audits again in the same directory: the outputs must be those of a
// fresh audit of the videos as they are now. A stored answer read the old
// bytes (or a failure), so it is computed again: once, truncating a video,
// auditing, restoring it and auditing again reused the failed items'
// guesses and showed no failure, exit 0.
func TestAuditAfterAVideoChangesMatchesAFreshAudit(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := worldFixtureCopy(t) // a video is changed below
	video := filepath.Join(root, "videos", "w0000.mp4")
	whole, err := os.ReadFile(video)
	if err != nil {
		t.Fatal(err)
	}
	truncate := func() { os.WriteFile(video, whole[:len(whole)/3], 0o644) }
	restore := func() { os.WriteFile(video, whole, 0o644) }
	// Another video's bytes: decodable, but not what the answers read.
	other, err := os.ReadFile(filepath.Join(root, "videos", "w0005.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	replace := func() { os.WriteFile(video, other, 0o644) }
	tests := []struct {
		name         string
		before, then func()
		failures     bool // the final card counts failures
	}{
		{"truncated, then restored", truncate, restore, false},
		{"whole, then truncated", restore, truncate, true},
		{"whole, then replaced by another video", restore, replace, false},
	}
	args := []string{"--items", items, "--videos", root, "--models", modelsDir, "--quiet"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "run")
			tc.before()
			if code, _, stderr := runAudit(append(args, "--out", dir)...); code != 0 {
				t.Fatalf("first audit: exit %d\n%s", code, stderr)
			}
			tc.then()
			defer restore()
			code, _, stderr := runAudit(append(args, "--out", dir)...)
			if code != 0 {
				t.Fatalf("audit again: exit %d\n%s", code, stderr)
			}
			fresh := filepath.Join(tmp, "fresh")
			if code, _, stderr := runAudit(append(args, "--out", fresh)...); code != 0 {
				t.Fatalf("fresh audit: exit %d\n%s", code, stderr)
			}
			sameRun(t, fresh, dir, "between a fresh audit and one run again after the video changed")
			cards, _ := os.ReadFile(filepath.Join(dir, rundir.CardsJSON))
			if got := strings.Contains(string(cards), `"truncated"`) || strings.Contains(string(cards), `"corrupt"`); got != tc.failures {
				t.Errorf("cards.json counts a failed video: %v, want %v", got, tc.failures)
			}
		})
	}
}
