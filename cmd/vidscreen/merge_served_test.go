package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestMergeServedReaders: with a served lm_reader and vlm_reader beside
// the init'd image tower and captioner, the shards ask every model reader
// (options-only, blind, retrieval, captions, the VLM readers and the
// permutation audit's orders) about their own items, together sending the
// unsharded audit's requests, each once; the merge of the two asks the
// server nothing (the counting server hears no request; stages.json says
// "requests": 0; with the server gone it writes the same) and writes the
// unsharded audit's outputs byte for byte, its cards naming each served
// reader's mode and form as the unsharded audit's do.
func TestMergeServedReaders(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl"}, Answer: longestOption})
	defer srv.Close()
	// The init'd models' image tower, captioner and asr, so that the
	// captions and transcript readers ask the served lm_reader too.
	dir := servedModels(t, modelsDir, srv.BaseURL(), 8, "vlm_reader")
	tmp := t.TempDir()
	args := []string{"audit", "--items", items, "--videos", root, "--models", dir, "--levels", "option,text,pool,frame,order", "--workers", "1", "--quiet"}
	whole := filepath.Join(tmp, "whole")
	if code, _, stderr := runWithKey(servedKey, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	asked := len(srv.Requests())
	var shards []string
	sent := 0
	for i, sh := range []string{"0/2", "1/2"} {
		out := filepath.Join(tmp, "shard-"+sh[:1])
		srv.Reset() // the shards ask again: the whole audit's store is its own
		if code, _, stderr := runWithKey(servedKey, append(args, "--out", out, "--shard", sh)...); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", sh, code, stderr)
		}
		n := len(srv.Requests())
		if n == 0 {
			t.Errorf("shard %d asked the server nothing", i)
		}
		sent += n
		t.Logf("shard %s sent %d requests (the unsharded audit %d)", sh, n, asked)
		shards = append(shards, out)
	}
	if sent != asked {
		t.Errorf("the shards sent %d requests together, the unsharded audit %d: each prompt is asked once, by its item's shard", sent, asked)
	}
	srv.Reset()
	merged := filepath.Join(tmp, "merged")
	code, _, stderr := runWithKey(servedKey, "merge", shards[1], shards[0], "--out", merged, "--log-format", "json")
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if rs := srv.Requests(); len(rs) != 0 {
		t.Errorf("the merge sent %d requests (the whole audit %d), want none; the first to %s: %.300q", len(rs), asked, rs[0].Model, rs[0].User())
	}
	sameRun(t, whole, merged, "between the unsharded audit and the merge of two shards with served readers")
	// The merge needs no server: with it gone, a merge writes the same.
	srv.Close()
	gone := filepath.Join(tmp, "merged-without-server")
	if code, _, stderr := runWithKey(servedKey, "merge", shards[0], shards[1], "--out", gone, "--quiet"); code != 0 {
		t.Fatalf("merge without the server: exit %d\n%s", code, stderr)
	}
	sameRun(t, whole, gone, "between the unsharded audit and a merge with the server gone")
	var stages struct {
		Requests *int64 `json:"requests"`
		Readers  string `json:"readers"`
	}
	b, err := os.ReadFile(filepath.Join(merged, rundir.StagesFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &stages); err != nil || stages.Requests == nil || *stages.Requests != 0 || stages.Readers != "from shards" {
		t.Errorf("the merge's %s says requests %v, readers %q (%v), want 0 and from shards", rundir.StagesFile, deref(stages.Requests), stages.Readers, err)
	}
	var doc struct {
		Cards []struct {
			YesNoOnly bool `json:"yes_no_only"`
			Served    []struct {
				Role, Model, Mode string
				Prefill           bool
			} `json:"served_readers"`
		} `json:"cards"`
	}
	b, _ = os.ReadFile(filepath.Join(merged, rundir.CardsJSON))
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Cards) == 0 {
		t.Fatalf("cards.json: %v", err)
	}
	for _, c := range doc.Cards {
		if c.YesNoOnly { // set aside as bare yes/no items: no attacker ran
			continue
		}
		if len(c.Served) != 2 {
			t.Errorf("a card names %d served readers, want lm_reader and vlm_reader: %+v", len(c.Served), c.Served)
		}
		for _, r := range c.Served {
			if r.Mode != "logprobs" || !r.Prefill {
				t.Errorf("the merge's card names %s (%s) in mode %q, prefill %v; want logprobs, prefilled", r.Role, r.Model, r.Mode, r.Prefill)
			}
		}
	}
}

// deref is *p, or -1 for nil.
func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestMergeServedTranscripts: in the audio world, whose models hear the
// videos (asr), with a served lm_reader, the shards ask the transcript
// reader about their own items and the merge asks nothing, writing the
// unsharded audit's outputs byte for byte.
func TestMergeServedTranscripts(t *testing.T) {
	t.Parallel()
	world := audioWorld.path(t)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption})
	defer srv.Close()
	dir := servedModels(t, filepath.Join(world, "models"), srv.BaseURL(), 8)
	tmp := t.TempDir()
	args := []string{"audit", "--items", filepath.Join(world, "items.jsonl"), "--videos", world, "--models", dir, "--levels", "frame", "--seed", "1", "--quiet"}
	whole := filepath.Join(tmp, "whole")
	if code, _, stderr := runWithKey(servedKey, append(args, "--out", whole)...); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	transcripts := func() int {
		n := 0
		for _, r := range srv.Requests() {
			// The transcript reader's prompt alone names a transcript
			// (its wording is letters', whichever it is).
			if strings.Contains(strings.ToLower(r.User()), "transcript") {
				n++
			}
		}
		return n
	}
	want := transcripts()
	if want == 0 {
		t.Fatal("the unsharded audit asked the transcript reader nothing")
	}
	var shards []string
	got := 0
	for _, sh := range []string{"0/2", "1/2"} {
		out := filepath.Join(tmp, "shard-"+sh[:1])
		srv.Reset()
		if code, _, stderr := runWithKey(servedKey, append(args, "--out", out, "--shard", sh)...); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", sh, code, stderr)
		}
		got += transcripts()
		shards = append(shards, out)
	}
	if got != want {
		t.Errorf("the shards asked the transcript reader %d prompts together, the unsharded audit %d", got, want)
	}
	srv.Reset()
	merged := filepath.Join(tmp, "merged")
	if code, _, stderr := runWithKey(servedKey, "merge", shards[0], shards[1], "--out", merged, "--quiet"); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if rs := srv.Requests(); len(rs) != 0 {
		t.Errorf("the merge sent %d requests, want none; the first: %.200q", len(rs), rs[0].User())
	}
	sameRun(t, whole, merged, "between the unsharded audit and the merge of two shards with the transcript reader")
}
