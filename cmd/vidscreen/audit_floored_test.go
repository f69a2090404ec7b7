package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// shownOptions returns the option texts of a reader's prompt, in the order
// shown ("A. text" lines).
func shownOptions(r *openaitest.Request) []string {
	var out []string
	for _, line := range strings.Split(r.User(), "\n") {
		if len(line) > 3 && line[0] >= 'A' && line[0] <= 'P' && line[1] == '.' && line[2] == ' ' && int(line[0]-'A') == len(out) {
			out = append(out, line[3:])
		}
	}
	return out
}

// TestAuditServedFloored: a served lm_reader whose server returns every
// option letter in its top log-probabilities, except on the prompts of
// the items showing a marked option, where it leaves one letter out (not
// the one it favours): items.parquet flags those items' options-reader and
// blind-reader answers floored and no other; stages.json counts them; and
// a run resumed from its records (the server asked nothing again) writes
// the same items.parquet and cards.json byte for byte.
func TestAuditServedFloored(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 24)
	var first struct {
		Options []string `json:"options"`
	}
	b, _ := os.ReadFile(items)
	if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &first); err != nil {
		t.Fatal(err)
	}
	mark := first.Options[0]
	answer := func(r *openaitest.Request) openaitest.Reply {
		opts := shownOptions(r)
		best := 0
		for j, o := range opts {
			if len(o) > len(opts[best]) {
				best = j
			}
		}
		top := map[string]float64{}
		for j := range opts {
			top[string(rune('A'+j))] = 0.1
		}
		top[string(rune('A'+best))] = 0.7
		if slices.Contains(opts, mark) {
			drop := len(opts) - 1
			if drop == best {
				drop = 0
			}
			delete(top, string(rune('A'+drop)))
		}
		return openaitest.Reply{Top: top}
	}
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: answer})
	defer srv.Close()
	dir := servedModels(t, "", srv.BaseURL(), 4)
	out := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text"); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	type row struct {
		Options  []string `parquet:"options,list"`
		OptF     bool     `parquet:"options_reader_floored"`
		BlindF   bool     `parquet:"blind_reader_floored"`
		BlindP   int32    `parquet:"blind_reader_pred"`
		CopyF    bool     `parquet:"copy_floored"`
		FixedF   bool     `parquet:"fixed_position_floored"`
		Failure  string   `parquet:"failure"`
		Abstains bool     `parquet:"blind_reader_abstained"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(out, rundir.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for i, r := range rows {
		want := slices.Contains(r.Options, mark)
		if want {
			marked++
		}
		if r.OptF != want || r.BlindF != want || r.CopyF || r.FixedF {
			t.Errorf("item %d (marked %v): options-reader floored %v, blind-reader %v, copy %v, fixed-position %v", i, want, r.OptF, r.BlindF, r.CopyF, r.FixedF)
		}
		if r.Failure != "" || r.Abstains || r.BlindP != longest(r.Options) {
			t.Errorf("item %d: blind-reader %d (abstained %v, failure %q); the server favours %d", i, r.BlindP, r.Abstains, r.Failure, longest(r.Options))
		}
	}
	if marked == 0 || marked == len(rows) {
		t.Fatalf("%d of %d items show the marked option; want some, not all", marked, len(rows))
	}
	var stages struct {
		Served []struct {
			Role    string `json:"role"`
			Floored int    `json:"floored"`
		} `json:"served"`
	}
	sb, _ := os.ReadFile(filepath.Join(out, rundir.StagesFile))
	if err := json.Unmarshal(sb, &stages); err != nil || len(stages.Served) != 1 || stages.Served[0].Floored < 2*marked {
		t.Errorf("stages.json's served roles %+v (%v): want lm_reader with at least %d floored answers", stages.Served, err, 2*marked)
	}

	// Resumed from its records and its caches: the predictions, their flag
	// with them, come from records.log (every unit is complete, so no
	// reader runs again), the other option orders of the cards' solved rule
	// from the response store, the reader's mode from config.json,
	// and the outputs are the run's.
	resumed := filepath.Join(t.TempDir(), "resumed")
	os.MkdirAll(filepath.Join(resumed, rundir.CacheDir), 0o755)
	for _, f := range []string{rundir.ConfigFile, rundir.RecordsFile, filepath.Join(rundir.CacheDir, runs.ServedStoreFile)} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(resumed, f), b, 0o644)
	}
	srv.Reset()
	if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", resumed, "--models", dir, "--levels", "option,text"); code != 0 {
		t.Fatalf("resumed audit: exit %d\n%s", code, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the resumed run asked the server %d questions; its records hold every answer", n)
	}
	for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, _ := os.ReadFile(filepath.Join(resumed, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the run and its resumption", f)
		}
	}
}

// TestAuditServedChatTemplateKwargs: an lm_reader entry with
// server_chat_template_kwargs sends them in every request body, and
// stages.json, cards.json and cards.md say them beside the reader's mode.
func TestAuditServedChatTemplateKwargs(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 8)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption})
	defer srv.Close()
	dir := t.TempDir()
	manifest := `{"roles": {"lm_reader": {"server": "` + srv.BaseURL() + `", "server_model": "fake-lm",
  "server_chat_template_kwargs": {"enable_thinking": false}}}}`
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runWithKey("", "audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text"); code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	const want = `{"enable_thinking":false}`
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the server was asked nothing")
	}
	for _, r := range reqs {
		if !bytes.Contains(r.Body, []byte(`"chat_template_kwargs":`+want)) {
			t.Fatalf("a request without the chat template's arguments: %s", r.Body)
		}
	}
	var stages struct {
		Served []struct {
			Kwargs string `json:"chat_template_kwargs"`
			Mode   string `json:"mode"`
		} `json:"served"`
	}
	b, _ := os.ReadFile(filepath.Join(out, rundir.StagesFile))
	if err := json.Unmarshal(b, &stages); err != nil || len(stages.Served) != 1 || stages.Served[0].Kwargs != want || stages.Served[0].Mode != "logprobs" {
		t.Errorf("stages.json's served line %+v (%v), want the arguments %s", stages.Served, err, want)
	}
	var cards struct {
		Cards []struct {
			Served []struct {
				Kwargs string `json:"chat_template_kwargs"`
			} `json:"served_readers"`
		} `json:"cards"`
	}
	b, _ = os.ReadFile(filepath.Join(out, rundir.CardsJSON))
	if err := json.Unmarshal(b, &cards); err != nil || len(cards.Cards) == 0 || len(cards.Cards[0].Served) != 1 || cards.Cards[0].Served[0].Kwargs != want {
		t.Errorf("cards.json's served readers %+v (%v), want the arguments %s", cards.Cards, err, want)
	}
	if md, _ := os.ReadFile(filepath.Join(out, rundir.CardsMarkdown)); !bytes.Contains(md, []byte("chat_template_kwargs "+want)) {
		t.Errorf("cards.md does not say the chat template's arguments:\n%s", md)
	}
	if cfg, _ := os.ReadFile(filepath.Join(out, rundir.ConfigFile)); !bytes.Contains(cfg, []byte(`chat_template_kwargs={\"enable_thinking\":false}`)) {
		t.Errorf("config.json does not name the served model with its arguments:\n%s", cfg)
	}
}
