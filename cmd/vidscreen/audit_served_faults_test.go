package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// itemQuestions are the questions of an items file, in order.
func itemQuestions(t *testing.T, items string) []string {
	t.Helper()
	b, err := os.ReadFile(items)
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var it struct {
			Question string `json:"question"`
		}
		if err := json.Unmarshal(line, &it); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, it.Question)
	}
	return qs
}

// TestAuditServedFaultyRepliesAreAskedAgain: a server that answers an
// item's queries with a 401 (a key changed mid-run), a 404 (a model
// renamed) or a 200 whose JSON has no choices fails that item (reason
// server), stores none of those replies, and the run resumed against the
// server once good asks those queries again, answers every item and writes
// what a fresh audit against the good server writes.
func TestAuditServedFaultyRepliesAreAskedAgain(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 12)
	qs := itemQuestions(t, items)
	for _, tt := range []struct {
		name  string
		fault openaitest.Fault
	}{
		{"401", openaitest.Fault{Status: 401}},
		{"404", openaitest.Fault{Status: 404}},
		{"no choices", openaitest.Fault{Body: `{"choices":[]}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var good atomic.Bool
			srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption, Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
				if !good.Load() && strings.Contains(r.User(), qs[3]) {
					return tt.fault
				}
				return openaitest.Fault{}
			}})
			defer srv.Close()
			dir := servedModels(t, "", srv.BaseURL(), 4)
			out := filepath.Join(t.TempDir(), "run")
			args := []string{"audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text", "--max-server-failures", "0.5"}
			if code, _, stderr := runWithKey(servedKey, args...); code != 0 {
				t.Fatalf("faulty server: exit %d\n%s", code, stderr)
			}
			type row struct {
				Question string `parquet:"question"`
				Failure  string `parquet:"failure"`
			}
			rows, err := parquet.ReadFile[row](filepath.Join(out, rundir.ItemsParquet))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if failing := r.Question == qs[3]; failing != (r.Failure == "server") {
					t.Errorf("item %q: failure %q", r.Question, r.Failure)
				}
			}
			good.Store(true)
			srv.Reset()
			if code, _, stderr := runWithKey(servedKey, args...); code != 0 {
				t.Fatalf("resumed against the good server: exit %d\n%s", code, stderr)
			}
			asked := srv.Count("/v1/chat/completions")
			if asked == 0 {
				t.Error("the resumed run asked nothing: the faulty replies were stored")
			}
			for _, r := range srv.Requests() {
				if !strings.Contains(r.User(), qs[3]) {
					t.Errorf("the resumed run asked an answered prompt again: %q", r.User())
				}
			}
			fresh := filepath.Join(t.TempDir(), "fresh")
			if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", fresh, "--models", dir, "--levels", "option,text"); code != 0 {
				t.Fatalf("fresh audit: exit %d\n%s", code, stderr)
			}
			for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
				a, _ := os.ReadFile(filepath.Join(fresh, f))
				b, _ := os.ReadFile(filepath.Join(out, f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s differs between the resumed run and a fresh audit against the good server", f)
				}
			}
		})
	}
}

// TestAuditServedModeIsDecidedOnce: against a server that drops the
// log-probabilities of one item's replies, that item fails (reason server)
// and every other is read from log-probabilities, its margins real; two
// identical runs write identical outputs.
func TestAuditServedModeIsDecidedOnce(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 12)
	qs := itemQuestions(t, items)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption, Fault: func(r *openaitest.Request, _ int) openaitest.Fault {
		return openaitest.Fault{NoLogprobs: strings.Contains(r.User(), qs[5])}
	}})
	defer srv.Close()
	dir := servedModels(t, "", srv.BaseURL(), 4)
	var outs []string
	for k := range 2 {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("run%d", k))
		if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text", "--max-server-failures", "0.5"); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", k, code, stderr)
		}
		outs = append(outs, out)
	}
	type row struct {
		Question string  `parquet:"question"`
		Failure  string  `parquet:"failure"`
		Margin   float64 `parquet:"blind_reader_margin"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(outs[0], rundir.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if failing := r.Question == qs[5]; failing != (r.Failure == "server") {
			t.Errorf("item %q: failure %q", r.Question, r.Failure)
		}
	}
	cards, _ := os.ReadFile(filepath.Join(outs[0], rundir.CardsJSON))
	if !bytes.Contains(cards, []byte(`"mode": "logprobs"`)) {
		t.Errorf("cards.json does not name the logprobs mode")
	}
	// The probe's mode is recorded in config.json, not switched by the
	// item whose replies lacked log-probabilities.
	var cfg rundir.Config
	if b, err := os.ReadFile(filepath.Join(outs[0], rundir.ConfigFile)); err != nil || json.Unmarshal(b, &cfg) != nil ||
		len(cfg.ServedModes) != 1 || cfg.ServedModes[0].Role != "lm_reader" || cfg.ServedModes[0].Mode != "logprobs" || !cfg.ServedModes[0].Prefill {
		t.Errorf("config.json's served_modes %+v (%v), want lm_reader in logprobs, prefilled", cfg.ServedModes, err)
	}
	for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
		a, _ := os.ReadFile(filepath.Join(outs[0], f))
		b, _ := os.ReadFile(filepath.Join(outs[1], f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two identical runs against the same flaky server", f)
		}
	}
}

// TestAuditServedHungServer: a server that accepts connections and never
// answers stops the run with exit 1 naming its URL, found by the probe
// (the first query, whose attempts are bounded by the shorter of
// openai.ProbeTimeout and server_timeout_s), not after every item's
// retries.
func TestAuditServedHungServer(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 12)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Delay: time.Hour})
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "models")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, models.ManifestFile), fmt.Appendf(nil, `{"roles": {"lm_reader": {"server": %q, "server_model": "fake-lm", "server_timeout_s": 1, "server_concurrency": 8}}}`, srv.BaseURL()), 0o644)
	code, _, stderr := runWithKey("", "audit", "--items", items, "--out", filepath.Join(t.TempDir(), "run"), "--models", dir, "--levels", "option,text")
	if code != 1 || !strings.Contains(stderr, "the server refused every request: lm_reader at "+srv.BaseURL()) || !strings.Contains(stderr, "no reply within 1s (after 3 attempts)") {
		t.Errorf("exit %d, want 1 naming %s and the probe:\n%s", code, srv.BaseURL(), stderr)
	}
	if n := srv.Count("/v1/chat/completions"); n != 3 {
		t.Errorf("%d requests, want the probe's 3 attempts alone", n)
	}
}
