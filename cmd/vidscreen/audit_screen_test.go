package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/harness/screen"
)

// TestAuditScreenReader: with a screen_reader role, the funnel's 32-frame
// steps are scored by it, in a pass of its own (the device work counts
// screen_reader prompts, config.json names it and its two frame sets):
// full-video-reader's frames in order, and shuffled-frames-screen-reader's
// frames in shuffled-frames-reader's seeded shuffle; the card's
// shuffled-frames-reader stays vlm_reader's. The screen_reader here is the
// vlm_reader folder itself, so its answers must equal vlm_reader's on the
// same frames: the run without it; a screen_reader of its own changes
// shuffled-frames-screen-reader's answers and not the card's
// shuffled-frames-reader's. Screening the run with a screen_reader
// takes the shuffled step from shuffled-frames-screen-reader's verdicts
// and says which VLM served each 32-frame step.
func TestAuditScreenReader(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	b, err := os.ReadFile(filepath.Join(modelsDir, "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	// withRole is modelsDir's models with screen_reader given by spec.
	withRole := func(spec json.RawMessage) string {
		man["roles"]["screen_reader"] = spec
		dir := filepath.Join(t.TempDir(), "models")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(modelsDir)
		for _, e := range entries {
			if e.IsDir() {
				os.Symlink(filepath.Join(modelsDir, e.Name()), filepath.Join(dir, e.Name()))
			}
		}
		b, _ := json.Marshal(man)
		os.WriteFile(filepath.Join(dir, "models.json"), b, 0o644)
		return dir
	}
	withScreen := withRole(man["roles"]["vlm_reader"])
	// A screen_reader that differs from vlm_reader: the same weights with a
	// shorter prompt limit (200 positions, not models init's 512), so fewer
	// of the 32 frames fit and its answers are its own.
	var vlm map[string]any
	if err := json.Unmarshal(man["roles"]["vlm_reader"], &vlm); err != nil {
		t.Fatal(err)
	}
	vlm["max_length"] = 200
	other, _ := json.Marshal(vlm)
	withOther := withRole(other)

	tmp := t.TempDir()
	type cell struct {
		Pred   int32   `parquet:"full_video_reader_pred"`
		Margin float64 `parquet:"full_video_reader_margin"`
		Shuf   float64 `parquet:"shuffled_frames_reader_margin"`
	}
	type shufScreen struct {
		Pred   int32   `parquet:"shuffled_frames_screen_reader_pred"`
		Margin float64 `parquet:"shuffled_frames_screen_reader_margin"`
		Shuf   float64 `parquet:"shuffled_frames_reader_margin"`
		ShufP  int32   `parquet:"shuffled_frames_reader_pred"`
		Guess  bool    `parquet:"shuffled_frames_screen_reader_abstained"`
		ShufG  bool    `parquet:"shuffled_frames_reader_abstained"`
		Failed string  `parquet:"failure"`
		Solved bool    `parquet:"shuffled_frames_screen_reader_solved"`
	}
	var got [2][]cell
	outs := make([]string, 3)
	for k, dir := range []string{modelsDir, withScreen} {
		out := filepath.Join(tmp, filepath.Base(filepath.Dir(dir))+"-"+filepath.Base(dir))
		outs[k] = out
		code, _, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", dir, "--levels", "order", "--workers", "1")
		if code != 0 {
			t.Fatalf("audit with %s: exit %d\n%s", dir, code, stderr)
		}
		if screened := strings.Contains(stderr, "screen_reader="); screened != (k == 1) {
			t.Errorf("models %s: screen_reader device work logged %v:\n%s", dir, screened, stderr)
		}
		var cfg struct {
			Videos struct {
				ScreenReader string   `json:"screen_reader"`
				ScreenSets   []string `json:"screen_frame_sets"`
			} `json:"videos"`
		}
		b, err := os.ReadFile(filepath.Join(out, rundir.ConfigFile))
		if err != nil || json.Unmarshal(b, &cfg) != nil {
			t.Fatalf("config.json: %v", err)
		}
		if named := strings.Contains(cfg.Videos.ScreenReader, "screen_reader"); named != (k == 1) {
			t.Errorf("models %s: config.json names screen_reader %q", dir, cfg.Videos.ScreenReader)
		}
		if sets := strings.Join(cfg.Videos.ScreenSets, " "); (k == 1) != (strings.Contains(sets, "screen-uniform-") && strings.Contains(sets, "screen-shuffled=uniform:32+shuffle")) {
			t.Errorf("models %s: config.json's screen_frame_sets %q", dir, sets)
		}
		if got[k], err = parquet.ReadFile[cell](filepath.Join(out, rundir.ItemsParquet)); err != nil {
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
	// Without a screen_reader the run has no shuffled-frames-screen-reader;
	// with it, its answers are vlm_reader's on the same shuffled frames.
	if _, err := parquet.ReadFile[shufScreen](filepath.Join(outs[0], rundir.ItemsParquet)); err == nil {
		if b, _ := os.ReadFile(filepath.Join(outs[0], rundir.CardsJSON)); strings.Contains(string(b), "shuffled-frames-screen-reader") {
			t.Error("the run without a screen_reader has a shuffled-frames-screen-reader")
		}
	}
	shuf, err := parquet.ReadFile[shufScreen](filepath.Join(outs[1], rundir.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	// With a screen_reader of its own, shuffled-frames-screen-reader
	// answers from its scores, and the card's shuffled-frames-reader is
	// vlm_reader's as without one.
	outs[2] = filepath.Join(tmp, "other")
	if code, _, stderr := runAudit("--items", items, "--out", outs[2], "--videos", root, "--models", withOther, "--levels", "order", "--workers", "1"); code != 0 {
		t.Fatalf("audit with %s: exit %d\n%s", withOther, code, stderr)
	}
	own, err := parquet.ReadFile[shufScreen](filepath.Join(outs[2], rundir.ItemsParquet))
	if err != nil || len(own) != len(shuf) {
		t.Fatalf("%d rows: %v", len(own), err)
	}
	differ := 0
	for i, r := range own {
		if r.Shuf != shuf[i].Shuf || r.ShufP != shuf[i].ShufP || r.ShufG != shuf[i].ShufG || r.Shuf != got[0][i].Shuf {
			t.Errorf("item %d: the card's shuffled-frames-reader changed with another screen_reader: %+v, %+v", i, r, shuf[i])
		}
		if r.Guess != shuf[i].Guess || r.Margin != shuf[i].Margin {
			differ++
		}
	}
	if differ == 0 {
		t.Error("a screen_reader of its own changed no answer of shuffled-frames-screen-reader")
	}
	// An item without scores (its video failed, its prompt fits no frame
	// count) gets each attacker's own seeded guess; every other item is
	// answered from the model's scores.
	scored := 0
	for i, r := range shuf {
		if r.Guess != r.ShufG || r.Failed != "" && !r.Guess || !r.Guess && (r.Pred != r.ShufP || r.Margin != r.Shuf) {
			t.Errorf("item %d: shuffled-frames-screen-reader %+v, against shuffled-frames-reader on the same model and shuffle", i, r)
		}
		if !r.Guess {
			scored++
		}
	}
	if scored == 0 {
		t.Error("shuffled-frames-screen-reader scored no item")
	}
	var cards struct {
		Cards []struct {
			YesNoOnly bool `json:"yes_no_only"`
			Attackers []struct {
				Name          string `json:"name"`
				ScreeningOnly bool   `json:"screening_only"`
			} `json:"attackers"`
			Levels map[string]struct {
				Attacker string `json:"attacker"`
			} `json:"levels"`
		} `json:"cards"`
	}
	if b, err := os.ReadFile(filepath.Join(outs[1], rundir.CardsJSON)); err != nil || json.Unmarshal(b, &cards) != nil || len(cards.Cards) == 0 {
		t.Fatalf("cards.json: %v", err)
	}
	for _, c := range cards.Cards {
		if c.YesNoOnly { // set aside as bare yes/no items: no attacker ran
			continue
		}
		found := false
		for _, a := range c.Attackers {
			if a.Name == screen.ShuffledScreenReader {
				found = true
				if !a.ScreeningOnly {
					t.Errorf("%s is not screening only on the card", a.Name)
				}
			}
		}
		if !found {
			t.Errorf("card without %s: %+v", screen.ShuffledScreenReader, c.Attackers)
		}
		for l, r := range c.Levels {
			if r.Attacker == screen.ShuffledScreenReader {
				t.Errorf("level %s's eps is %s's", l, r.Attacker)
			}
		}
	}

	// The funnel's shuffled step: shuffled-frames-screen-reader with a
	// screen_reader, shuffled-frames-reader without, the note naming the
	// VLM of each 32-frame step.
	for k, out := range outs {
		code, _, stderr := runCmd("screen", out)
		if code != 0 {
			t.Fatalf("screen %s: exit %d: %s", out, code, stderr)
		}
		s, err := screen.Read(filepath.Join(out, "screen"))
		if err != nil {
			t.Fatal(err)
		}
		step, other := "shuffled-frames-reader", screen.ShuffledScreenReader
		if k > 0 {
			step, other = other, step
		}
		if !slices.Contains(s.Funnel, step) || slices.Contains(s.Funnel, other) || slices.Index(s.Funnel, step) != slices.Index(s.Funnel, "full-video-reader")+1 {
			t.Errorf("run %d: funnel %v, want %s after full-video-reader and no %s", k, s.Funnel, step, other)
		}
		notes := strings.Join(s.Notes, "\n")
		if want := map[bool]string{false: "one VLM: the 32-frame steps", true: "the 32-frame steps use screen_reader (onnx:screen_reader"}[k > 0]; !strings.Contains(notes, want) {
			t.Errorf("run %d: notes %q, want %q", k, notes, want)
		}
		// Each removal at the shuffled step is that attacker's verdict.
		removed := 0
		for _, r := range s.Rows {
			v := r.Verdict(step)
			if v == nil {
				t.Fatalf("row %s: no %s verdict", r.ID, step)
			}
			if r.RemovedBy == step {
				removed++
				if !v.Solved {
					t.Errorf("row %s: removed by %s, which does not solve it: %+v", r.ID, step, v)
				}
			}
			if r.RemovedBy == "" && r.Pending == "" && v.Solved {
				t.Errorf("row %s: kept though %s solves it", r.ID, step)
			}
		}
		t.Logf("run %d: %d removed by %s", k, removed, step)
	}
	// Alone in the funnel, the shuffled step on screen_reader judges by its
	// own verdicts: what it solves is in solved_by (the fixture's duplicate
	// step takes those items first), and it removes only what it solves.
	if code, _, stderr := runCmd("screen", outs[2], "--attackers", screen.ShuffledScreenReader); code != 0 {
		t.Fatalf("screen --attackers %s: exit %d: %s", screen.ShuffledScreenReader, code, stderr)
	}
	s, err := screen.Read(filepath.Join(outs[2], "screen"))
	if err != nil {
		t.Fatal(err)
	}
	solved := 0
	for i, r := range s.Rows {
		v := r.Verdict(screen.ShuffledScreenReader)
		if v.Solved != own[i].Solved || v.Solved != slices.Contains(r.SolvedBy, screen.ShuffledScreenReader) {
			t.Errorf("row %s: verdict %+v, items.parquet solved %v, solved_by %v", r.ID, v, own[i].Solved, r.SolvedBy)
		}
		if v.Solved {
			solved++
		}
		if r.RemovedBy == screen.ShuffledScreenReader && !v.Solved {
			t.Errorf("row %s: removed though shuffled-frames-screen-reader does not solve it: %+v", r.ID, v)
		}
	}
	if solved == 0 {
		t.Error("shuffled-frames-screen-reader solves nothing")
	}
}
