package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness/dups"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/shareddata"
)

// videoInputs is videoFixture's video root and items (its models are
// initModels): copies of shared videos (whose decoding is deterministic;
// see the report on smpte-2997.mp4 in docs/audit.md), a corrupt file and a
// link leaving the root, and 18 real NExT-QA items spread over them (six
// per video kind: decodable, corrupt, missing, outside the root).
var videoInputs = newFixture("video-inputs", func(dir string) error {
	src, err := shareddata.Lookup("videos")
	if err != nil {
		return err
	}
	root := filepath.Join(dir, "videos")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for from, to := range map[string]string{"big_buck_bunny_0_30_h264_640.mp4": "bbb.mp4", "big_buck_bunny_432_433.webm": "short.webm"} {
		b, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			return err
		}
		os.WriteFile(filepath.Join(root, to), b, 0o644)
	}
	os.WriteFile(filepath.Join(root, "corrupt.mp4"), bytes.Repeat([]byte("not a video "), 400), 0o644)
	os.Symlink(filepath.Join(src, "big_buck_bunny_0_30.webm"), filepath.Join(root, "link.webm"))
	items, err := nextqaItems(18)
	if err != nil {
		return err
	}
	paths := []string{"bbb.mp4", "short.webm", "bbb.mp4", "corrupt.mp4", "gone.mp4", "link.webm", "../bbb.mp4", "short.webm", "bbb.mp4"}
	for i, it := range items {
		it["video_path"] = paths[i%len(paths)]
		if i == 2 { // a clip of the long video
			it["start"], it["end"] = 4.0, 9.5
		}
	}
	return writeItems(filepath.Join(dir, "items.jsonl"), items)
})

// videoFixture returns videoInputs' items and video root and initModels'
// directory, to read (built once per test binary).
func videoFixture(t *testing.T) (items, root, modelsDir string) {
	t.Helper()
	needORT(t)
	shareddata.Path(t, "videos")
	shareddata.Path(t, "nextqa.jsonl")
	dir := videoInputs.path(t)
	return filepath.Join(dir, "items.jsonl"), filepath.Join(dir, "videos"), initModelsDir(t)
}

// videoFixtureCopy is videoFixture in a folder of t's own, to change.
func videoFixtureCopy(t *testing.T) (items, root, modelsDir string) {
	t.Helper()
	items, root, modelsDir = videoFixture(t)
	tmp := t.TempDir()
	copyTree(t, filepath.Dir(items), filepath.Join(tmp, "inputs"))
	copyTree(t, modelsDir, filepath.Join(tmp, "models"))
	return filepath.Join(tmp, "inputs", "items.jsonl"), filepath.Join(tmp, "inputs", "videos"), filepath.Join(tmp, "models")
}

// outputs are the files a run writes that must not depend on workers,
// kills or caches.
var outputs = []string{rundir.ConfigFile, rundir.CardsJSON, rundir.CardsMarkdown, rundir.IndexHTML, rundir.ItemsParquet, rundir.DuplicatesFile, rundir.QuestionNPY, rundir.CentreFrameNPY, rundir.MeanFrameNPY}

func sameOutputs(t *testing.T, a, b, what string) {
	t.Helper()
	for _, name := range outputs {
		x, err1 := os.ReadFile(filepath.Join(a, name))
		y, err2 := os.ReadFile(filepath.Join(b, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs %s (%v, %v)", name, what, err1, err2)
		}
	}
}

func TestAuditVideoLevels(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixtureCopy(t) // its models.json is rewritten below
	tmp := t.TempDir()
	var dirs []string
	for _, w := range []string{"1", "3"} {
		out := filepath.Join(tmp, "w"+w)
		code, stdout, stderr := runAudit("--items", items, "--out", out, "--videos", root, "--models", modelsDir, "--workers", w)
		if code != 0 {
			t.Fatalf("--workers %s: exit %d\n%s", w, code, stderr)
		}
		if !strings.Contains(stdout, "eps frame") || !strings.Contains(stdout, "eps order") {
			t.Errorf("summary lacks the video levels:\n%s", stdout)
		}
		// 8 of 18 videos failed, above the 5% the summary warns at; the
		// order retention's median is below the table (issue 20, points 7
		// and 11).
		if !strings.Contains(stdout, "warning: NExT-QA: the video failed for 8 of 18 items") || !strings.Contains(stdout, "Order retention (Video-Index 3.6, vlm_reader") {
			t.Errorf("summary lacks the failure warning or the order retention:\n%s", stdout)
		}
		dirs = append(dirs, out)
	}
	sameOutputs(t, dirs[0], dirs[1], "between --workers 1 and 3")
	// Four emulated devices (four image towers and captioners under one
	// pool) write the same bytes as one.
	four := filepath.Join(tmp, "cpu4")
	if code, _, stderr := runAudit("--items", items, "--out", four, "--videos", root, "--models", modelsDir, "--workers", "1", "--device", "cpu:4"); code != 0 {
		t.Fatalf("--device cpu:4: exit %d\n%s", code, stderr)
	} else if !strings.Contains(stderr, "frames_by_device") {
		t.Errorf("the features log line lacks the frames per device:\n%s", stderr)
	}
	sameOutputs(t, dirs[0], four, "between --device cpu and cpu:4")

	var doc struct {
		Cards []struct {
			Levels    map[string]*struct{ Attacker string } `json:"levels"`
			LevelsRun []string                              `json:"levels_run"`
			SharedBy  string                                `json:"shared_videos_by"`
			Failures  map[string]int                        `json:"failures"`
			Effective *struct {
				Mean float64 `json:"mean"`
				N    int     `json:"n"`
			} `json:"effective_size"`
			Attackers []struct {
				Name         string  `json:"name"`
				AbstainShare float64 `json:"abstain_share"`
			} `json:"attackers"`
			Permutation map[string]*struct {
				Permutations int       `json:"permutations"`
				N            int       `json:"n"`
				Accuracies   []float64 `json:"accuracies"`
				Min          float64   `json:"accuracy_min"`
				Max          float64   `json:"accuracy_max"`
				Changed      float64   `json:"changed_share"`
			} `json:"permutation"`
			Diagnostics *struct {
				Frames     int `json:"frames"`
				N          int `json:"n"`
				Conditions []struct {
					Name string `json:"name"`
					N    int    `json:"n"`
				} `json:"conditions"`
			} `json:"order_diagnostics"`
		} `json:"cards"`
	}
	b, _ := os.ReadFile(filepath.Join(dirs[0], rundir.CardsJSON))
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) { // cards.json before its envelope
		b = append(append([]byte(`{"cards": `), b...), '}')
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Cards) != 1 {
		t.Fatalf("cards.json: %v, %d cards", err, len(doc.Cards))
	}
	c := doc.Cards[0]
	if strings.Join(c.LevelsRun, ",") != "option,text,pool,frame,order" || c.Levels["frame"] == nil || c.Levels["order"] == nil {
		t.Errorf("levels run %v, levels %v: want all five", c.LevelsRun, c.Levels)
	}
	// The audit read the videos and embedded their frames: shared videos
	// are matched by content and by the perceptual match.
	if c.SharedBy != dups.VideosByPerceptual {
		t.Errorf("shared videos matched by %q, want %q", c.SharedBy, dups.VideosByPerceptual)
	}
	// 18 items over 9 paths: twice each of corrupt, gone, link (outside) and ../ (outside).
	want := map[string]int{"corrupt": 2, "missing": 2, "outside-root": 4}
	if len(c.Failures) != len(want) {
		t.Errorf("failures %v, want %v", c.Failures, want)
	}
	for k, n := range want {
		if c.Failures[k] != n {
			t.Errorf("failures %v, want %v", c.Failures, want)
		}
	}
	// The effective size draws from the 10 items whose video decoded: one
	// draw of all of them, at most 10 distinct.
	if e := c.Effective; e == nil || e.N != 10 || e.Mean < 1 || e.Mean > 10 {
		t.Errorf("effective size %+v: want one draw of the 10 items with features", e)
	}
	// The option-permutation audit of each model reader (lm_reader and
	// vlm_reader): the original and 8 permutations, their range and the
	// share of changed choices.
	for _, r := range []string{"options-reader", "blind-reader", "captions-reader", "centre-frame-reader", "shuffled-frames-reader", "contiguous-tenth-reader"} {
		p := c.Permutation[r]
		if p == nil || p.Permutations != 8 || p.N != 18 || len(p.Accuracies) != 9 ||
			p.Min != slices.Min(p.Accuracies) || p.Max != slices.Max(p.Accuracies) || p.Changed < 0 || p.Changed > 1 {
			t.Errorf("permutation audit of %s: %+v", r, p)
		}
	}
	// The halves and shifted grids of vlm_reader, then the order level's
	// shuffled and tenth (Video-Index 3.6's retention), on the items whose
	// video decoded (and whose prompt fits the small model).
	var conds []string
	if d := c.Diagnostics; d != nil {
		for _, x := range d.Conditions {
			conds = append(conds, x.Name)
		}
	}
	if d := c.Diagnostics; d == nil || d.Frames != 32 || d.N > 10 || strings.Join(conds, ",") != "half1,half2,off1,off2,shuffled,tenth" {
		t.Errorf("order diagnostics %+v: want half1, half2, off1, off2, shuffled, tenth at 32 frames", d)
	}
	names := map[string]float64{}
	for _, a := range c.Attackers {
		names[a.Name] = a.AbstainShare
	}
	for _, n := range []string{"centre-frame", "centre-frame-qa", "captions-match", "centre-frame-reader", "bag-of-frames-mean", "bag-of-frames-max", "shuffled-frames-reader", "contiguous-tenth-reader"} {
		share, ok := names[n]
		if !ok {
			t.Errorf("attacker %s did not run", n)
		}
		if share < 8.0/18-1e-3 { // shares are rounded to 4 digits
			t.Errorf("%s abstained on %.3f of the items; the 8 of 18 whose video failed at least", n, share)
		}
		if share > 1-1e-3 {
			t.Errorf("%s abstained on every item; it should answer those whose video decoded", n)
		}
	}
	// The eight-chunk reader (the Video-Oasis redundancy check) runs
	// where vlm_reader does; it answers only where its eight chunks agree,
	// so it may abstain on more than the failed videos.
	if share, ok := names["eight-chunk-reader"]; !ok || share < 8.0/18-1e-3 {
		t.Errorf("eight-chunk-reader: ran %v, abstained on %.3f of the items (the 8 of 18 whose video failed at least)", ok, share)
	} else {
		t.Logf("eight-chunk-reader abstained on %.3f of the items", share)
	}

	// Without the captioner, captions-match is skipped with a line naming
	// the role; the other video attackers run.
	os.WriteFile(filepath.Join(modelsDir, "models.json"), []byte(`{"roles": {"image_text": {"dir": "image_text"}, "text_embed": {"dir": "text_embed"}}}`), 0o644)
	// It also reads 8 uniform frames (--frames), which config.json records.
	code, stdout, stderr := runAudit("--items", items, "--out", filepath.Join(tmp, "nocap"), "--videos", root, "--models", modelsDir, "--workers", "2", "--frames", "8")
	if code != 0 || !strings.Contains(stderr, "captions-match skipped: the models directory has no captioner role") ||
		!strings.Contains(stderr, "shuffled-frames-reader skipped: the models directory has no vlm_reader role") {
		t.Errorf("exit %d; stderr lacks the skipped line:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "eps frame") {
		t.Errorf("summary:\n%s", stdout)
	}
	var cfg struct {
		Videos struct {
			Frames int      `json:"frames"`
			Sets   []string `json:"frame_sets"`
		} `json:"videos"`
	}
	b, _ = os.ReadFile(filepath.Join(tmp, "nocap", rundir.ConfigFile))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.Videos.Frames != 8 || !slices.Contains(cfg.Videos.Sets, "uniform=uniform:8") {
		t.Errorf("config.json videos %+v (%v): want frames 8 and the set uniform=uniform:8", cfg.Videos, err)
	}

	for _, tt := range []struct {
		name string
		args []string
	}{
		{"frame level without --videos", []string{"--levels", "frame", "--models", modelsDir}},
		{"--videos without a video level", []string{"--levels", "option", "--videos", root, "--models", modelsDir}},
		{"--videos without --models and no levels", []string{"--videos", root}},
		{"--device cpu:0", []string{"--videos", root, "--models", modelsDir, "--device", "cpu:0"}},
	} {
		t.Run(tt.name+" is bad usage", func(t *testing.T) {
			code, _, stderr := runAudit(append([]string{"--items", items, "--out", filepath.Join(tmp, "bad")}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2: %s", code, stderr)
			}
		})
	}
}

// TestAuditVideoSurvivesSIGKILL kills `vidscreen audit` with SIGKILL during
// the feature stage and then during the attack stage of one run directory,
// resumes it, and checks that the outputs are byte-identical to an
// uninterrupted run's and that the resumed run read from the cache every
// video whose features were stored before the kill (it says how many it
// computed in its "features done" log record).
func TestAuditVideoSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary several times")
	}
	items, root, modelsDir := videoFixture(t)
	tmp := t.TempDir()
	bin := binary(t)
	args := func(out string) []string {
		return []string{"audit", "--items", items, "--out", out, "--videos", root, "--models", modelsDir, "--workers", "2", "--log-format", "json"}
	}
	whole := filepath.Join(tmp, "whole")
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	cut := filepath.Join(tmp, "cut")
	// cached counts the videos whose features and VLM scores are both
	// stored (each cache entry names its video's path; an entry is stored
	// once the checksum of its last file is written beside it).
	cached := func() int {
		paths := func(glob string) map[string]bool {
			out := map[string]bool{}
			m, _ := filepath.Glob(filepath.Join(cut, rundir.CacheDir, glob))
			for _, f := range m {
				if _, err := os.Stat(f + ".sha256"); err != nil {
					continue
				}
				var e struct{ Path string }
				if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &e) == nil {
					out[e.Path] = true
				}
			}
			return out
		}
		vlm := paths("vlm-*.json")
		n := 0
		for p := range paths("video-*.json") {
			if vlm[p] {
				n++
			}
		}
		return n
	}
	recorded := func() bool {
		st, err := os.Stat(filepath.Join(cut, rundir.RecordsFile))
		return err == nil && st.Size() > 0
	}
	// featuresDone reads the "features done" record of a run's log: how
	// many videos it read from the cache and how many it computed.
	type featuresDone struct {
		Msg      string `json:"msg"`
		Cached   int    `json:"cached"`
		Computed int    `json:"computed"`
	}
	featuresOf := func(log []byte) featuresDone {
		var done featuresDone
		for _, line := range strings.Split(string(log), "\n") {
			var rec featuresDone
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "features done" {
				done = rec
			}
		}
		return done
	}
	before := 0
	for _, stage := range []struct {
		name  string
		ready func() bool
	}{
		{"features", func() bool { return cached() >= 1 }},
		{"attack", recorded},
	} {
		cmd := exec.Command(bin, args(cut)...)
		var log bytes.Buffer
		cmd.Stderr = &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		killed := false
	wait:
		for {
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("run before the kill in the %s stage failed: %v", stage.name, err)
				}
				break wait
			case <-time.After(time.Millisecond):
			}
			if stage.ready() {
				cmd.Process.Signal(syscall.SIGKILL)
				killed = <-exited != nil
				break wait
			}
		}
		t.Logf("kill in the %s stage: killed=%v, %d videos cached", stage.name, killed, cached())
		if !killed {
			t.Errorf("the run ended before the kill in the %s stage", stage.name)
		}
		if stage.name == "features" && recorded() {
			t.Errorf("the kill meant for the feature stage landed in the attack stage")
		}
		if stage.name == "attack" {
			// This run resumed after the kill in the feature stage and got
			// through its own feature stage before being killed.
			if done := featuresOf(log.Bytes()); done.Msg == "" || done.Cached != before || done.Computed != 2-before {
				t.Errorf("run after the feature-stage kill: %+v; %d of 2 videos were stored before it started", done, before)
			}
		}
		before = cached()
	}
	out, err := exec.Command(bin, args(cut)...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	sameOutputs(t, whole, cut, "after kills in the feature and attack stages")
	if done := featuresOf(out); done.Msg == "" || done.Cached != 2 || done.Computed != 0 {
		t.Errorf("final run: %+v; want both videos read from the cache", done)
	}
}

// TestAuditWithNoVideoReadExits1: --videos pointing at a root holding none
// of the items' videos exits 1 naming the root and the first failing video,
// instead of exiting 0 with frame and order bars drawn from seeded guesses
// (issue 20, point 11).
func TestAuditWithNoVideoReadExits1(t *testing.T) {
	t.Parallel()
	items, _, modelsDir := videoFixture(t)
	wrong := filepath.Join(t.TempDir(), "elsewhere")
	os.MkdirAll(wrong, 0o755)
	code, _, stderr := runAudit("--items", items, "--out", filepath.Join(t.TempDir(), "run"), "--videos", wrong, "--models", modelsDir,
		"--levels", "option,frame", "--workers", "1")
	if code != 1 || !strings.Contains(stderr, "no video of the 18 items could be read under --videos") || !strings.Contains(stderr, "bbb.mp4") {
		t.Errorf("exit %d, want 1 naming the root and bbb.mp4:\n%s", code, stderr)
	}
}
