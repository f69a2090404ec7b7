package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditReportsEmptyCaptions audits the world's videos with the models of
// `models init` (every role: the caption attackers need text_embed), first
// as written, then with a captioner tokenizer that knows none of the ids
// the captioner writes, so that every caption decodes to "" (as
// the small models' captioner did in a clone without ../shared, issue 24):
// the audit must say so, in a warning and in stages.json, both when it
// writes the captions and when a second run reads them from the cache.
func TestAuditReportsEmptyCaptions(t *testing.T) {
	t.Parallel()
	items, root, _ := worldFixture(t)
	tmp := t.TempDir()
	// models init's models, and a copy whose captioner is changed below.
	good, mdir := initModelsDir(t), initModelsCopy(t)
	// models init's captioner says what the frames show: no warning.
	code, _, stderr := runAudit("--items", items, "--videos", root, "--models", good, "--levels", "frame", "--out", filepath.Join(tmp, "good-run"))
	if code != 0 || strings.Contains(stderr, "empty captions") {
		t.Errorf("models init's captioner: exit %d, stderr:\n%s", code, stderr)
	}

	// A WordPiece tokenizer.json of the special tokens alone.
	tok := `{"version": "1.0", "truncation": null, "padding": null,
  "added_tokens": [
    {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
    {"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
  "normalizer": null, "pre_tokenizer": {"type": "BertPreTokenizer"}, "post_processor": null,
  "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
    "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}}}`
	if err := os.WriteFile(filepath.Join(mdir, "captioner", "tokenizer.json"), []byte(tok), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	var counts []int
	for run := range 2 {
		code, _, stderr := runAudit("--items", items, "--videos", root, "--models", mdir, "--levels", "frame", "--out", out)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, code, stderr)
		}
		if !strings.Contains(stderr, "level=WARN") || !strings.Contains(stderr, "empty captions") {
			t.Errorf("run %d: no warning of the empty captions on stderr:\n%s", run, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "stages.json"))
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Stages []struct {
				Name          string `json:"name"`
				EmptyCaptions int    `json:"empty_captions"`
			} `json:"stages"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		n := -1
		for _, s := range st.Stages {
			if s.Name == "features" {
				n = s.EmptyCaptions
			}
		}
		if n <= 0 {
			t.Errorf("run %d: stages.json counts %d empty captions on the features stage:\n%s", run, n, b)
		}
		counts = append(counts, n)
	}
	if counts[0] != counts[1] {
		t.Errorf("empty captions: %d when written, %d when read from the cache", counts[0], counts[1])
	}

	// vidomni caption with the same captioner says how many of the
	// captions it wrote are empty, on stdout and in a warning; with models
	// init's captioner none is.
	videos, err := filepath.Glob(filepath.Join(root, "videos", "*.mp4"))
	if err != nil || len(videos) < 2 {
		t.Fatalf("the world's videos: %v, %v", videos, err)
	}
	for _, tc := range []struct {
		name, models, stdout string
		warn                 bool
	}{
		{"bad", mdir, "2 captions written to " + filepath.Join(tmp, "bad.jsonl") + ", 2 of them empty", true},
		{"good", good, "2 captions written to " + filepath.Join(tmp, "good.jsonl") + "\n", false},
	} {
		name := tc.name
		code, stdout, stderr := runCmd("vidomni", "caption", "--models", tc.models, "--frames", "4", "--out", filepath.Join(tmp, name+".jsonl"), videos[0], videos[1])
		if code != 0 || !strings.Contains(stdout, tc.stdout) || strings.Contains(stderr, "warning: 2 of the 2 captions are empty") != tc.warn {
			t.Errorf("vidomni caption with the %s captioner: exit %d, stdout %q, stderr %q; want %q, warning %v", name, code, stdout, stderr, tc.stdout, tc.warn)
		}
	}
}
