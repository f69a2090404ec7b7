package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// TestAuditRecordsVideoHashes: an audit with --videos writes each item's
// video SHA-256 into items.parquet (video_sha256) where the video gave
// features and leaves it empty where it failed, and screening identifies
// the videos by it (Video-Index 5.1, pool/dedup.py: same video by
// content): the fixture's three items on bbb.mp4 (one a clip) share one
// identity, its two on short.webm another, and the note says 10 of the 18
// items were compared by content.
func TestAuditRecordsVideoHashes(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	out := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", modelsDir, "--levels", "frame", "--workers", "2"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sum := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:])
	}
	// videoFixture's paths, item i on paths[i % 9].
	// The identity is items.parquet's video_identity: the content, which
	// the perceptual match leaves alone here (the two files are different
	// videos).
	bbb, short := dups.ContentPrefix+sum("bbb.mp4"), dups.ContentPrefix+sum("short.webm")
	want := []string{bbb, short, bbb, "", "", "", "", short, bbb}
	in, err := screen.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Rows) != 18 {
		t.Fatalf("%d rows, want 18", len(in.Rows))
	}
	for i, r := range in.Rows {
		if r.VideoID != want[i%9] || (r.VideoID == "") != (r.Failure != "") {
			t.Errorf("item %d (%s, failure %q): video identity %q, want %q", i, r.Video, r.Failure, r.VideoID, want[i%9])
		}
	}
	note := strings.Join(in.Notes, "\n")
	if !strings.Contains(note, "video identity: by content (the SHA-256 of the video's bytes, items.parquet video_sha256) for 10 of 18 items") {
		t.Errorf("notes lack the video identity:\n%s", note)
	}
}
