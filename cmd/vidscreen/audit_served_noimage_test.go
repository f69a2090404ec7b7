package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestAuditServedWithoutImageText: a models directory whose lm_reader and
// vlm_reader are served and which has no image_text role runs the video
// levels' VLM readers all the same (their frames come from the one decode
// pass; the server sizes them): centre-frame-reader and
// shuffled-frames-reader answer what the server favours, while the
// attackers that compare frame embeddings are skipped naming image_text.
func TestAuditServedWithoutImageText(t *testing.T) {
	t.Parallel()
	items, root, _ := videoFixture(t)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl"}, Answer: longestOption})
	defer srv.Close()
	dir := servedModels(t, "", srv.BaseURL(), 8, "vlm_reader")
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--videos", root, "--models", dir, "--levels", "option,text,frame,order", "--workers", "1")
	if code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"centre-frame", "bag-of-frames"} {
		if !strings.Contains(stderr, "attacker "+name) || !strings.Contains(stderr, "skipped: the models directory has no image_text role") {
			t.Errorf("stderr does not say %s is skipped for want of image_text:\n%s", name, stderr)
		}
	}
	if strings.Contains(stderr, "centre-frame-reader skipped") || strings.Contains(stderr, "shuffled-frames-reader skipped") {
		t.Errorf("a served VLM reader was skipped:\n%s", stderr)
	}
	images := 0
	for _, r := range srv.Requests() {
		images += r.Images()
	}
	if images == 0 {
		t.Error("the served vlm_reader was sent no frame")
	}
	type row struct {
		Options []string `parquet:"options,list"`
		Failure string   `parquet:"failure"`
		CentreP int32    `parquet:"centre_frame_reader_pred"`
		CentreG bool     `parquet:"centre_frame_reader_abstained"`
		ShufP   int32    `parquet:"shuffled_frames_reader_pred"`
		ShufG   bool     `parquet:"shuffled_frames_reader_abstained"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(out, rundir.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for i, r := range rows {
		if r.Failure != "" || r.CentreG || r.ShufG {
			continue
		}
		scored++
		if want := longest(r.Options); r.CentreP != want || r.ShufP != want {
			t.Errorf("item %d: centre-frame-reader %d, shuffled-frames-reader %d; the server favours %d", i, r.CentreP, r.ShufP, want)
		}
	}
	if scored == 0 {
		t.Error("no item answered by the served VLM without an image tower")
	}
}
