package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/harness/rundir"
)

// TestAuditExtendsAVideoRun adds a benchmark to a finished run of every
// level (videos and models from `models init`): the outputs equal a fresh
// run's, the old attackers answer only the new benchmark's items, and the
// cached video features are read, not made again.
func TestAuditExtendsAVideoRun(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	tmp := t.TempDir()
	// Two benchmarks over the same videos: the first nine items and the rest.
	f, err := os.Open(items)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		var it map[string]any
		json.Unmarshal(sc.Bytes(), &it)
		dst, name := &a, "nextqa-a"
		if i >= 9 {
			dst, name = &b, "nextqa-b"
		}
		it["benchmark"] = name
		line, _ := json.Marshal(it)
		dst.Write(append(line, '\n'))
	}
	f.Close()
	fileA, fileB := filepath.Join(tmp, "a.jsonl"), filepath.Join(tmp, "b.jsonl")
	os.WriteFile(fileA, a.Bytes(), 0o644)
	os.WriteFile(fileB, b.Bytes(), 0o644)
	video := []string{"--videos", root, "--models", modelsDir}

	fresh := filepath.Join(tmp, "fresh")
	if code, _, stderr := runAudit(append([]string{"--items", fileA, "--items", fileB, "--out", fresh}, video...)...); code != 0 {
		t.Fatalf("fresh: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(tmp, "extended")
	if code, _, stderr := runAudit(append([]string{"--items", fileA, "--out", out}, video...)...); code != 0 {
		t.Fatalf("first benchmark: exit %d\n%s", code, stderr)
	}
	cache := func() map[string]time.Time {
		m := map[string]time.Time{}
		entries, _ := os.ReadDir(filepath.Join(out, rundir.CacheDir))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "video-") {
				info, _ := e.Info()
				m[e.Name()] = info.ModTime()
			}
		}
		return m
	}
	before := cache()
	if len(before) == 0 {
		t.Fatal("the first run cached no video features")
	}
	if code, _, stderr := runAudit(append([]string{"--items", fileA, "--items", fileB, "--out", out}, video...)...); code != 0 {
		t.Fatalf("extension: exit %d\n%s", code, stderr)
	}
	sameOutputs(t, fresh, out, "between a fresh run and an extended one")
	after := cache()
	for name, mt := range before {
		if !after[name].Equal(mt) {
			t.Errorf("cached features %s were made again", name)
		}
	}
	var info struct {
		Attackers []struct {
			Name     string `json:"name"`
			Level    string `json:"level"`
			Variants int    `json:"variants"`
			Items    int    `json:"items"`
		} `json:"attackers"`
	}
	raw, _ := os.ReadFile(filepath.Join(out, rundir.RunJSON))
	if err := json.Unmarshal(raw, &info); err != nil || len(info.Attackers) == 0 {
		t.Fatalf("run.json: %v", err)
	}
	// The answers of an item whose video failed are not stored (the next
	// run tries the video again), so an attacker that reads the video,
	// answering the whole stream, answers the first benchmark again when
	// one of its videos failed.
	var cards struct {
		Cards []struct {
			Benchmark string         `json:"benchmark"`
			Failures  map[string]int `json:"failures"`
		} `json:"cards"`
	}
	raw, _ = os.ReadFile(filepath.Join(fresh, rundir.CardsJSON))
	if err := json.Unmarshal(raw, &cards); err != nil {
		t.Fatalf("cards.json: %v", err)
	}
	firstFailed := false
	for _, c := range cards.Cards {
		firstFailed = firstFailed || c.Benchmark == "nextqa-a" && len(c.Failures) > 0
	}
	for _, at := range info.Attackers {
		want := 9
		if firstFailed && (at.Level == "frame" || at.Level == "order") {
			want = 18
		}
		if at.Variants == 0 || at.Items != want*at.Variants {
			t.Errorf("attacker %s answered %d items over %d variants in the extension, want %d on each", at.Name, at.Items, at.Variants, want)
		}
	}
}
