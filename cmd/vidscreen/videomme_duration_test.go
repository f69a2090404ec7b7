package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/metrics"
	"github.com/vidscreen/vidscreen/harness/release"
	"github.com/vidscreen/vidscreen/harness/rundir"
)

// videommeSamples writes an lmms-eval Video-MME samples log of n videos
// with three questions each, the videos short, medium and long in turn:
// with doc (up to v0.3, videoID naming each file) or without (v0.4-0.6:
// the question id's number is all that names the video).
func videommeSamples(t *testing.T, path string, videos int, withDoc bool) {
	t.Helper()
	cats := []string{"short", "medium", "long"}
	nouns := []string{"dog", "car", "tree", "boat", "lamp", "bird", "chair", "cup", "kite", "drum", "shoe", "bell"}
	var b strings.Builder
	doc := 0
	for v := range videos {
		for q := range 3 {
			id := fmt.Sprintf("%03d-%d", v+1, q+1)
			cat := cats[v%3]
			question := fmt.Sprintf("In clip %d, which object appears %s?", v+1, []string{"first", "last", "most often"}[q])
			opts := []string{}
			for k := range 4 {
				opts = append(opts, fmt.Sprintf("%c. A %s.", 'A'+k, nouns[(v+q+3*k)%len(nouns)]))
			}
			gold := string(rune('A' + (v*3+q)%4))
			rec := map[string]any{"doc_id": doc, "target": gold, "filtered_resps": []any{gold}}
			if withDoc {
				rec["doc"] = map[string]any{"video_id": fmt.Sprintf("%03d", v+1), "duration": cat, "domain": "Knowledge", "videoID": fmt.Sprintf("yt%09d", v+1),
					"question_id": id, "task_type": "Object Recognition", "question": question, "options": opts, "answer": gold}
			} else {
				rec["input"] = question + "\n" + strings.Join(opts, "\n") + "\nAnswer with the option's letter from the given choices directly."
				rec["videomme_perception_score"] = map[string]any{"question_id": id, "duration": cat, "category": "Knowledge", "task_category": "Object Recognition", "pred_answer": gold, "answer": gold}
			}
			line, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
			doc++
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVideoMMEDurationCategory: a Video-MME log imported from lmms-eval
// keeps short/medium/long as the items' duration_category; the audit's
// card breaks down by it, and select groups by it (not "unknown").
func TestVideoMMEDurationCategory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "samples_videomme_2024-06-20T10-11-12.123456.jsonl")
	videommeSamples(t, log, 12, true)
	items := filepath.Join(dir, "videomme.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval", log, "--out", items); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	its, err := harness.ReadFiles(t.Context(), []string{items}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != 36 || its[0].DurationCategory != "short" || its[3].DurationCategory != "medium" || its[6].DurationCategory != "long" || its[0].Duration != nil || its[0].Video != "yt000000001" {
		t.Fatalf("items[0] %+v, items[3] category %q, items[6] category %q; want 36 items, short, medium, long, no seconds, video yt000000001", its[0], its[3].DurationCategory, its[6].DurationCategory)
	}
	run := filepath.Join(dir, "run")
	if code, _, stderr := runAudit("--items", items, "--out", run, "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(run, rundir.CardsJSON))
	if err != nil {
		t.Fatal(err)
	}
	var cards struct {
		Cards []struct {
			Benchmark string              `json:"benchmark"`
			Durations []metrics.Breakdown `json:"durations"`
		} `json:"cards"`
	}
	if err := json.Unmarshal(raw, &cards); err != nil {
		t.Fatal(err)
	}
	if len(cards.Cards) != 1 {
		t.Fatalf("%d cards, want 1", len(cards.Cards))
	}
	var got []string
	for _, d := range cards.Cards[0].Durations {
		got = append(got, fmt.Sprintf("%s %d", d.Name, d.N))
	}
	if want := []string{"short 12", "medium 12", "long 12"}; !slices.Equal(got, want) {
		t.Errorf("card's duration breakdown %v, want %v", got, want)
	}
	md, err := os.ReadFile(filepath.Join(run, rundir.CardsMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "By duration category:") || !strings.Contains(string(md), "| medium | 12 |") {
		t.Errorf("cards.md has no duration category breakdown:\n%s", md)
	}
	for _, c := range []struct {
		args []string
		want []string // the release's duration groups
	}{
		{[]string{"--items", items, "--export-lmms-eval", filepath.Join(dir, "lmms"), "--export-vlmevalkit", filepath.Join(dir, "Video-MME-hard.tsv")}, []string{"short", "medium", "long"}},
		{[]string{"--durations", "long"}, []string{"long"}},
	} {
		rel := filepath.Join(dir, fmt.Sprintf("rel%d", len(c.args)))
		args := append([]string{"select", run, "--out", rel, "--budget", "12", "--json", "--accept-residual"}, c.args...)
		if code, _, stderr := runCmd(args...); code != 0 {
			t.Fatalf("select %v: exit %d: %s", c.args, code, stderr)
		}
		report, err := os.ReadFile(filepath.Join(rel, release.ReportMarkdown))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(report), "| unknown |") {
			t.Errorf("select %v: the release groups items as unknown:\n%s", c.args, report)
		}
		for _, g := range c.want {
			if !strings.Contains(string(report), "| "+g+" | ") {
				t.Errorf("select %v: no duration group %s in the release's composition:\n%s", c.args, g, report)
			}
		}
		released, err := harness.ReadFiles(t.Context(), []string{filepath.Join(rel, release.ItemsFile)}, harness.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range released {
			if !slices.Contains(c.want, it.DurationCategory) {
				t.Errorf("select %v: released item %s has duration category %q, want one of %v", c.args, it.ID, it.DurationCategory, c.want)
			}
		}
	}
	// The exported task keeps the category and names each video by its
	// videoID, the file lmms-eval's videomme utils.py opens
	// (data/<videoID>.mp4): the exported utils.py finds it under
	// $VIDSCREEN_VIDEOS set to that data folder.
	lm := filepath.Join(dir, "lmms")
	back := filepath.Join(dir, "back.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval-task", filepath.Join(lm, "dataset.jsonl"), "--out", back); code != 0 {
		t.Fatalf("import lmms-eval-task: exit %d: %s", code, stderr)
	}
	backs, err := harness.ReadFiles(t.Context(), []string{back}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range backs {
		if it.DurationCategory == "" || !strings.HasPrefix(it.Video, "yt") {
			t.Errorf("exported item %s came back with duration category %q, video %q; want its category and videoID", it.ID, it.DurationCategory, it.Video)
		}
	}
	tsvBack := filepath.Join(dir, "tsvback.jsonl")
	if code, _, stderr := runCmd("import", "vlmevalkit", filepath.Join(dir, "Video-MME-hard.tsv"), "--out", tsvBack); code != 0 {
		t.Fatalf("import vlmevalkit: exit %d: %s", code, stderr)
	}
	tsvs, err := harness.ReadFiles(t.Context(), []string{tsvBack}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range tsvs {
		if it.DurationCategory != backs[i].DurationCategory || it.Duration != nil {
			t.Errorf("VLMEvalKit table: item %s came back with duration category %q, duration %v; want %q, none", it.ID, it.DurationCategory, it.Duration, backs[i].DurationCategory)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		return
	}
	data := filepath.Join(dir, "Video-MME", "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for v := range 12 {
		if err := os.WriteFile(filepath.Join(data, fmt.Sprintf("yt%09d.mp4", v+1)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `import json, sys
sys.path.insert(0, sys.argv[1])
import utils
for line in open(sys.argv[1] + "/dataset.jsonl", encoding="utf-8"):
    print(utils.video_file(json.loads(line), {"VIDSCREEN_VIDEOS": sys.argv[2]}))
`
	out, err := exec.Command(py, "-B", "-c", script, lm, data).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), ".mp4\n"); n != len(backs) {
		t.Errorf("the exported utils.py found %d of %d videos:\n%s", n, len(backs), out)
	}
}

// TestVideoMMEVideoNumberExport: a log that names each video only by its
// number (lmms-eval v0.4-0.6 without doc: "001" from question id "001-1")
// imports with a warning naming --items-from, and the lmms-eval export
// refuses it (exit 2) rather than write a task looking for <root>/001.
func TestVideoMMEVideoNumberExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "20250712_101112_samples_videomme.jsonl")
	videommeSamples(t, log, 12, false)
	items := filepath.Join(dir, "videomme.jsonl")
	code, _, stderr := runCmd("import", "lmms-eval", log, "--out", items)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "36 from the question id") || !strings.Contains(stderr, "--items-from") {
		t.Errorf("import's warning does not count the numbered videos or name --items-from:\n%s", stderr)
	}
	run := filepath.Join(dir, "run")
	if code, _, stderr := runAudit("--items", items, "--out", run, "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	lm := filepath.Join(dir, "lmms")
	code, _, stderr = runCmd("select", run, "--out", filepath.Join(dir, "rel"), "--budget", "12", "--json", "--accept-residual", "--items", items, "--export-lmms-eval", lm)
	if code != 2 || !strings.Contains(stderr, "name their video only by a number") || !strings.Contains(stderr, "--items-from") {
		t.Errorf("select --export-lmms-eval: exit %d, want 2 naming the numbered videos and --items-from:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(lm, "dataset.jsonl")); err == nil {
		t.Error("the refused export wrote its dataset")
	}
	// The fix the message names: Video-MME's own table (here as JSON
	// records, the parquet's columns), imported, then joined with
	// --items-from; the export then goes through.
	its, err := harness.ReadFiles(t.Context(), []string{items}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var table []map[string]any
	for v := range 12 {
		for q := range 3 {
			it := its[v*3+q]
			opts := make([]any, len(it.Options))
			for k, o := range it.Options {
				opts[k] = fmt.Sprintf("%c. %s", 'A'+k, o)
			}
			table = append(table, map[string]any{"video_id": fmt.Sprintf("%03d", v+1), "duration": it.DurationCategory, "domain": "Knowledge", "videoID": fmt.Sprintf("yt%09d", v+1),
				"question_id": it.ID, "task_type": it.Task, "question": it.Question, "options": opts, "answer": string(rune('A' + it.Answer))})
		}
	}
	b, err := json.Marshal(table)
	if err != nil {
		t.Fatal(err)
	}
	tableFile := filepath.Join(dir, "videomme-test.json")
	if err := os.WriteFile(tableFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "videomme-table.jsonl")
	if code, _, stderr := runCmd("import", "videomme", tableFile, "--out", named); code != 0 {
		t.Fatalf("import videomme: exit %d: %s", code, stderr)
	}
	joined := filepath.Join(dir, "joined.jsonl")
	code, _, stderr = runCmd("import", "lmms-eval", log, "--out", joined, "--items-from", named)
	if code != 0 || strings.Contains(stderr, "from the question id") {
		t.Fatalf("import --items-from: exit %d: %s", code, stderr)
	}
	run2 := filepath.Join(dir, "run2")
	if code, _, stderr := runAudit("--items", joined, "--out", run2, "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCmd("select", run2, "--out", filepath.Join(dir, "rel2"), "--budget", "12", "--json", "--accept-residual", "--items", joined, "--export-lmms-eval", filepath.Join(dir, "lmms2"))
	if code != 0 {
		t.Fatalf("select --export-lmms-eval after --items-from: exit %d: %s", code, stderr)
	}
	docs, err := os.ReadFile(filepath.Join(dir, "lmms2", "dataset.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docs), `"video":"yt0000000`) || strings.Contains(string(docs), "video_from") || !strings.Contains(string(docs), `"duration_category":"`) {
		t.Errorf("the exported documents do not name the videos by videoID with their category:\n%.600s", docs)
	}
}

// TestVideoMMETestdataCategory: the lmms-eval Video-MME samples in the
// predictions testdata import with duration_category "short" (their
// duration) and the videoID (fFjv93ACGo8, zzzzzzzzzzz) as the video, no
// meta.video_from.
func TestVideoMMETestdataCategory(t *testing.T) {
	t.Parallel()
	items := filepath.Join(t.TempDir(), "videomme.jsonl")
	if code, _, stderr := runCmd("import", "lmms-eval", filepath.Join(predictionsTestdata, "samples_videomme_2024-06-20T10-11-12.123456.jsonl"), "--out", items); code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	its, err := harness.ReadFiles(t.Context(), []string{items}, harness.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range its {
		if it.DurationCategory != "short" || it.Duration != nil || len(it.Video) != 11 || strings.Contains(string(it.Meta), "video_from") {
			t.Errorf("item %s: category %q, duration %v, video %q, meta %s; want short, none, an 11-character videoID, no video_from", it.ID, it.DurationCategory, it.Duration, it.Video, it.Meta)
		}
	}
}
