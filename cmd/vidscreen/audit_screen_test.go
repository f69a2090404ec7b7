package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	runs "github.com/vidscreen/vidscreen/harness/run"
)

// TestAuditScreenReader: with a screen_reader role, full-video-reader's 32
// frames in order are scored by it, in a pass of its own (the device work
// counts screen_reader prompts, config.json names it), and the card's
// shuffled-frames-reader stays vlm_reader's. The screen_reader here is the
// vlm_reader folder itself, so its answers must equal vlm_reader's on the
// same frames: the run without it.
func TestAuditScreenReader(t *testing.T) {
	items, root, modelsDir := videoFixture(t)
	b, err := os.ReadFile(filepath.Join(modelsDir, "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	man["roles"]["screen_reader"] = man["roles"]["vlm_reader"]
	withScreen := filepath.Join(t.TempDir(), "models")
	if err := os.MkdirAll(withScreen, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(modelsDir)
	for _, e := range entries {
		if e.IsDir() {
			os.Symlink(filepath.Join(modelsDir, e.Name()), filepath.Join(withScreen, e.Name()))
		}
	}
	b, _ = json.Marshal(man)
	os.WriteFile(filepath.Join(withScreen, "models.json"), b, 0o644)

	tmp := t.TempDir()
	type cell struct {
		Pred   int32   `parquet:"full_video_reader_pred"`
		Margin float64 `parquet:"full_video_reader_margin"`
		Shuf   float64 `parquet:"shuffled_frames_reader_margin"`
	}
	var got [2][]cell
	for k, dir := range []string{modelsDir, withScreen} {
		out := filepath.Join(tmp, filepath.Base(filepath.Dir(dir))+"-"+filepath.Base(dir))
		code, _, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", dir, "--levels", "order", "--workers", "1")
		if code != 0 {
			t.Fatalf("audit with %s: exit %d\n%s", dir, code, stderr)
		}
		if screened := strings.Contains(stderr, "screen_reader="); screened != (k == 1) {
			t.Errorf("models %s: screen_reader device work logged %v:\n%s", dir, screened, stderr)
		}
		var cfg struct {
			Videos struct {
				ScreenReader string `json:"screen_reader"`
			} `json:"videos"`
		}
		b, err := os.ReadFile(filepath.Join(out, runs.ConfigFile))
		if err != nil || json.Unmarshal(b, &cfg) != nil {
			t.Fatalf("config.json: %v", err)
		}
		if named := strings.Contains(cfg.Videos.ScreenReader, "screen_reader"); named != (k == 1) {
			t.Errorf("models %s: config.json names screen_reader %q", dir, cfg.Videos.ScreenReader)
		}
		if got[k], err = parquet.ReadFile[cell](filepath.Join(out, runs.ItemsParquet)); err != nil {
			t.Fatal(err)
		}
	}
	if len(got[0]) != 18 || len(got[1]) != 18 {
		t.Fatalf("%d and %d rows", len(got[0]), len(got[1]))
	}
	for i := range got[0] {
		if got[0][i] != got[1][i] {
			t.Errorf("item %d: %+v with vlm_reader, %+v with the same model as screen_reader", i, got[0][i], got[1][i])
		}
	}
}
