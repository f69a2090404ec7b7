package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/internal/checksum"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestMergeReferenceProbe: with --reference-model on a served vlm_reader
// and a long-video benchmark (every item says 600 s) whose 32-frame
// reference is wrong everywhere (at chance) and whose 128-frame probe is
// right, the probe supplies s*. Split in two, the shards ask the server
// the 128-frame prompts (the probe runs in the shards, as the features
// do), together exactly the unsharded audit's; the merge asks nothing
// (the counting server hears no request, stages.json says "requests": 0)
// and writes the unsharded audit's outputs byte for byte.
func TestMergeReferenceProbe(t *testing.T) {
	t.Parallel()
	items, root, _ := videoFixture(t)
	// Three copies of the fixture's 18 items (10 of whose videos decode),
	// so that the probe scores the 30 items the authors' minimum asks, and
	// a fourth as another long benchmark on the same videos, which the
	// "model" answers right at 32 frames: the merge does not probe it, and
	// the shards, which cannot know that, do; so the shards' cache holds
	// no entry for the probed benchmark's items alone, and a merge that
	// asked vlm_reader would be heard.
	const above, aboveMark = "NExT-QA-above", " (above chance)"
	gold := map[string]int{}
	long := filepath.Join(t.TempDir(), "long.jsonl")
	var buf bytes.Buffer
	f, err := os.Open(items)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var it map[string]any
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, it)
	}
	f.Close()
	for copyN := range 4 {
		for _, it := range rows {
			c := map[string]any{}
			for k, v := range it {
				c[k] = v
			}
			c["id"] = fmt.Sprintf("%v#%d", it["id"], copyN)
			if copyN == 3 {
				c["benchmark"], c["question"] = above, fmt.Sprintf("%v%s", it["question"], aboveMark)
			}
			c["duration"] = 600.0
			delete(c, "start")
			delete(c, "end")
			gold[c["question"].(string)] = int(c["answer"].(float64))
			b, _ := json.Marshal(c)
			buf.Write(append(b, '\n'))
		}
	}
	if err := os.WriteFile(long, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The "model": wrong at 32 frames or fewer, right at the probe's 128.
	answer := func(r *openaitest.Request) openaitest.Reply {
		if r.Images() == 0 {
			return longestOption(r)
		}
		user, best := r.User(), ""
		for q := range gold {
			if strings.Contains(user, q) && len(q) > len(best) {
				best = q
			}
		}
		letter := gold[best]
		if r.Images() <= runs.ReferenceFrames && !strings.HasSuffix(best, aboveMark) {
			letter = (letter + 1) % 2
		}
		l := string(rune('A' + letter))
		return openaitest.Reply{Top: map[string]float64{l: 0.9, "x": 0.1}}
	}
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl"}, Answer: answer})
	defer srv.Close()
	dir := servedModels(t, "", srv.BaseURL(), 8, "vlm_reader")
	probes := func() (n int) {
		for _, r := range srv.Requests() {
			if r.Images() > runs.ReferenceFrames {
				n++
			}
		}
		return n
	}
	tmp := t.TempDir()
	// --no-dedup: the copies are duplicates (same video, options and
	// question), which the audit would otherwise remove first.
	args := []string{"audit", "--items", long, "--videos", root, "--models", dir, "--levels", "option", "--reference-model", "--no-dedup", "--workers", "1", "--quiet"}
	whole := filepath.Join(tmp, "whole")
	if code, _, stderr := runWithKey(servedKey, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	asked, probed := len(srv.Requests()), probes()
	if probed == 0 {
		t.Fatal("the unsharded audit asked no 128-frame probe")
	}
	var doc struct {
		Cards []struct {
			NearChance bool `json:"reference_near_chance"`
			Source     *struct {
				Probe bool `json:"probe"`
				N128  int  `json:"n_128"`
				Near  bool `json:"reference_near_chance"`
			} `json:"reference_source"`
		} `json:"cards"`
	}
	b, _ := os.ReadFile(filepath.Join(whole, rundir.CardsJSON))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Cards) != 2 || doc.Cards[0].Source == nil || doc.Cards[1].Source == nil {
		t.Fatalf("cards.json: %v", err)
	}
	if c := doc.Cards[1]; c.Source.Probe || c.Source.Near || c.NearChance {
		t.Errorf("%s: reference_source %+v, near chance %v: want the 32-frame s*, above chance", above, *c.Source, c.NearChance)
	}
	if c := doc.Cards[0]; !c.Source.Probe || c.Source.N128 < runs.MinReferenceItems || !c.Source.Near || !c.NearChance {
		t.Errorf("reference_source %+v, near chance %v: want the probe's s* over at least %d items, the 32-frame one flagged near chance", *c.Source, c.NearChance, runs.MinReferenceItems)
	}
	var shards []string
	sent, sentProbes := 0, 0
	for _, sh := range []string{"0/2", "1/2"} {
		out := filepath.Join(tmp, "shard-"+sh[:1])
		srv.Reset()
		if code, _, stderr := runWithKey(servedKey, append(args, "--out", out, "--shard", sh)...); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", sh, code, stderr)
		}
		sent, sentProbes = sent+len(srv.Requests()), sentProbes+probes()
		shards = append(shards, out)
	}
	t.Logf("the unsharded audit sent %d requests (%d probes at %d frames), the shards %d (%d probes)", asked, probed, runs.ProbeFrames, sent, sentProbes)
	// The shards probe the benchmark above chance too: the price of a
	// merge that asks nothing.
	if sent-sentProbes != asked-probed || sentProbes <= probed {
		t.Errorf("the shards sent %d requests (%d probes), the unsharded audit %d (%d probes): want the same others and more probes", sent, sentProbes, asked, probed)
	}
	srv.Reset()
	merged := filepath.Join(tmp, "merged")
	if code, _, stderr := runWithKey(servedKey, "merge", shards[1], shards[0], "--out", merged, "--quiet"); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if rs := srv.Requests(); len(rs) != 0 {
		t.Errorf("the merge sent %d requests, want none; the first has %d images", len(rs), rs[0].Images())
	}
	sameRun(t, whole, merged, "between the unsharded audit and the merge of two shards with --reference-model")
	var stages struct {
		Requests *int64 `json:"requests"`
	}
	b, _ = os.ReadFile(filepath.Join(merged, rundir.StagesFile))
	if err := json.Unmarshal(b, &stages); err != nil || stages.Requests == nil || *stages.Requests != 0 {
		t.Errorf("the merge's %s says requests %v (%v), want 0", rundir.StagesFile, deref(stages.Requests), err)
	}
	// A shard's probe changed after the shard finished (another frame
	// count, its checksum made to match) is bad input: the shard's
	// completion record refuses it, exit 2 naming the shard and the file.
	probeFile := filepath.Join(shards[0], runs.ProbeFile)
	pb, err := checksum.ReadFile(probeFile)
	if err != nil {
		t.Fatal(err)
	}
	pb = bytes.Replace(pb, []byte(`"frames":128`), []byte(`"frames":64`), 1)
	if err := checksum.Write(probeFile, func(w io.Writer) error { _, err := w.Write(pb); return err }); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runWithKey(servedKey, "merge", shards[0], shards[1], "--out", filepath.Join(tmp, "merged-bad"), "--quiet")
	if code != 2 || !strings.Contains(stderr, shards[0]) || !strings.Contains(stderr, runs.ProbeFile) {
		t.Errorf("a shard's probe changed to 64 frames: exit %d, %s; want 2 naming %s and %s", code, stderr, shards[0], runs.ProbeFile)
	}
}
