package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestAuditServedModes: the cards say which mode and form each served
// reader's answers came in: a server that refuses logprobs and the
// prefilled turn gives generate without the prefill, a full one logprobs
// with it, on cards.json, cards.md and index.html alike; a run resumed
// with every answer stored asks nothing and still names the mode, its
// cards byte-identical.
func TestAuditServedModes(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 12)
	for _, tc := range []struct {
		name    string
		cfg     openaitest.Config
		mode    string
		prefill bool
		line    string
	}{
		{"full", openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption}, "logprobs", true, "lm_reader (fake-lm): logprobs, prefilled"},
		{"plain", openaitest.Config{Models: []string{"fake-lm"}, Logprobs: openaitest.LogprobsRefused, RefusePrefill: true,
			Answer: func(r *openaitest.Request) openaitest.Reply { rep := longestOption(r); rep.Text = "B"; return rep }},
			"generate", false, "lm_reader (fake-lm): generate, without the prefilled turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(tc.cfg)
			defer srv.Close()
			dir := servedModels(t, "", srv.BaseURL(), 4)
			out := filepath.Join(t.TempDir(), "run")
			if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text"); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			b, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON))
			var doc struct {
				Cards []struct {
					YesNoOnly bool `json:"yes_no_only"`
					Served    []struct {
						Role, Model, Mode string
						Prefill           bool
					} `json:"served_readers"`
				} `json:"cards"`
			}
			if err := json.Unmarshal(b, &doc); err != nil || len(doc.Cards) == 0 {
				t.Fatalf("cards.json: %v", err)
			}
			for _, c := range doc.Cards {
				if c.YesNoOnly { // set aside as bare yes/no items: nothing asked
					continue
				}
				if len(c.Served) != 1 || c.Served[0].Role != "lm_reader" || c.Served[0].Model != "fake-lm" || c.Served[0].Mode != tc.mode || c.Served[0].Prefill != tc.prefill {
					t.Errorf("a card's served readers %+v, want lm_reader fake-lm in %s, prefill %v", c.Served, tc.mode, tc.prefill)
				}
			}
			for _, f := range []string{rundir.CardsMarkdown, rundir.IndexHTML} {
				if b, _ := os.ReadFile(filepath.Join(out, f)); !strings.Contains(string(b), "Served readers: "+tc.line) {
					t.Errorf("%s does not say %q", f, tc.line)
				}
			}
			srv.Reset()
			if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text"); code != 0 {
				t.Fatalf("resumed: exit %d\n%s", code, stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the resumed run sent %d requests, want none", n)
			}
			if again, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON)); !bytes.Equal(again, b) {
				t.Errorf("cards.json differs after a resume that asked nothing:\n%s\n%s", b, again)
			}
			// config.json records the mode the probe decided.
			cfgPath := filepath.Join(out, rundir.ConfigFile)
			conf, _ := os.ReadFile(cfgPath)
			var cfg rundir.Config
			if err := json.Unmarshal(conf, &cfg); err != nil || len(cfg.ServedModes) != 1 || cfg.ServedModes[0].Role != "lm_reader" || cfg.ServedModes[0].Model != "fake-lm" ||
				cfg.ServedModes[0].Mode != tc.mode || cfg.ServedModes[0].Prefill != tc.prefill {
				t.Errorf("config.json's served_modes %+v (%v), want lm_reader fake-lm in %s, prefill %v", cfg.ServedModes, err, tc.mode, tc.prefill)
			}
			// A run made before config.json kept the modes has them in its
			// cache's served-modes.json: resumed, it reads them there, names
			// them on its cards and records them in config.json.
			cut := bytes.Index(conf, []byte(",\n  \"served_modes\":"))
			if cut < 0 {
				t.Fatalf("config.json has no served_modes last:\n%s", conf)
			}
			old, _ := json.Marshal(cfg.ServedModes)
			os.WriteFile(filepath.Join(out, rundir.CacheDir, rundir.ServedModesFile), old, 0o644)
			os.WriteFile(cfgPath, append(conf[:cut:cut], "\n}\n"...), 0o644)
			if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--models", dir, "--levels", "option,text"); code != 0 {
				t.Fatalf("an older run resumed: exit %d\n%s", code, stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the older run resumed sent %d requests, want none", n)
			}
			if again, _ := os.ReadFile(filepath.Join(out, rundir.CardsJSON)); !bytes.Equal(again, b) {
				t.Errorf("cards.json differs after an older run's resume:\n%s\n%s", b, again)
			}
			if again, _ := os.ReadFile(cfgPath); !bytes.Equal(again, conf) {
				t.Errorf("config.json after an older run's resume:\n%s\nwant\n%s", again, conf)
			}
		})
	}
}
