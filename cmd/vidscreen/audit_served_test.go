package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"

	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/models"
)

// servedFake answers chat completions as a served lm_reader and vlm_reader
// would: the first token's top log-probabilities favour the letter of the
// longest option (ties: the first), so the answer of every model reader
// follows from its item. It records each request's body; failing, when
// set, answers 500 to the requests whose text holds it.
type servedFake struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	failing string
}

func newServedFake(t *testing.T, failing string) *servedFake {
	f := &servedFake{failing: failing}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		text, _ := requestParts(body)
		if f.failing != "" && strings.Contains(text, f.failing) {
			http.Error(w, `{"error": {"message": "engine dead"}}`, 500)
			return
		}
		best, bestLen := "A", -1
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 2 && line[0] >= 'A' && line[0] <= 'Z' && line[1] == '.' && len(line) > bestLen {
				best, bestLen = line[:1], len(line)
			}
		}
		other := "A"
		if best == "A" {
			other = "B"
		}
		top := []map[string]any{{"token": best, "logprob": math.Log(0.6)}, {"token": " " + best, "logprob": math.Log(0.1)}, {"token": other, "logprob": math.Log(0.2)}}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"logprobs": map[string]any{"content": []any{map[string]any{"token": best, "logprob": math.Log(0.6), "top_logprobs": top}}}}}})
	}))
	t.Cleanup(f.Close)
	return f
}

// requestParts returns a request's text and its image count, and whether
// every image comes before the first text.
func requestParts(body map[string]any) (text string, images int) {
	var b strings.Builder
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		switch c := m.(map[string]any)["content"].(type) {
		case string:
			b.WriteString(c)
		case []any:
			for _, p := range c {
				pm := p.(map[string]any)
				if pm["type"] == "image_url" {
					images++
				} else if s, ok := pm["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
	}
	return b.String(), images
}

// servedModels writes a models directory whose roles are modelsDir's, with
// lm_reader and vlm_reader served at url (their key in the variable
// VIDSCREEN_TEST_KEY).
func servedModels(t *testing.T, modelsDir, url string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(modelsDir, models.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	for role, name := range map[string]string{"lm_reader": "fake-lm", "vlm_reader": "fake-vl"} {
		man["roles"][role] = json.RawMessage(fmt.Sprintf(`{"server": %q, "server_model": %q, "server_retries": 1, "server_api_key_env": "VIDSCREEN_TEST_KEY"}`, url+"/v1", name))
	}
	dir := filepath.Join(t.TempDir(), "models")
	os.MkdirAll(dir, 0o755)
	entries, _ := os.ReadDir(modelsDir)
	for _, e := range entries {
		if e.IsDir() {
			os.Symlink(filepath.Join(modelsDir, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	b, _ = json.Marshal(man)
	os.WriteFile(filepath.Join(dir, models.ManifestFile), b, 0o644)
	return dir
}

// runWithKey runs vidscreen with VIDSCREEN_TEST_KEY set to key.
func runWithKey(key string, args ...string) (int, string, string) {
	var o, e bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &o, stderr: &e, getenv: func(k string) string {
		if k == "VIDSCREEN_TEST_KEY" {
			return key
		}
		return ""
	}}
	code := run(context.Background(), args, env)
	return code, o.String(), e.String()
}

const servedKey = "sk-served-test-secret-1234"

// TestAuditServedReaders: an audit whose lm_reader and vlm_reader are
// served asks the server for every model reader's prompts (options-only:
// no question, no image; blind: the question, no image; centre-frame: one
// image; shuffled, tenth and in-order: 32 or fewer frames, images first),
// and each reader's answer is the letter the server's log-probabilities
// favour. No file of the run directory holds the API key; config.json
// names the served models; stages.json counts the served roles.
func TestAuditServedReaders(t *testing.T) {
	items, root, modelsDir := videoFixture(t)
	srv := newServedFake(t, "")
	dir := servedModels(t, modelsDir, srv.URL)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--videos", root, "--models", dir, "--levels", "option,text,frame,order", "--workers", "1")
	if code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	byImages := map[int]int{}
	var optionsOnly, blind int
	for _, b := range srv.bodies {
		text, n := requestParts(b)
		byImages[n]++
		if b["max_tokens"] != 1.0 || b["temperature"] != 0.0 || b["top_logprobs"] != 20.0 {
			t.Errorf("request parameters %v %v %v", b["max_tokens"], b["temperature"], b["top_logprobs"])
		}
		switch {
		case n == 0 && !strings.Contains(text, "Question:"):
			optionsOnly++
			if b["model"] != "fake-lm" {
				t.Errorf("an options-only prompt to %v", b["model"])
			}
		case n == 0:
			blind++
		}
		if n > 32 {
			t.Errorf("a request with %d images", n)
		}
	}
	if optionsOnly == 0 || blind == 0 || byImages[1] == 0 || byImages[32] == 0 {
		t.Errorf("requests by image count %v, %d options-only, %d blind: want every condition", byImages, optionsOnly, blind)
	}
	type row struct {
		Options []string `parquet:"options,list"`
		Failure string   `parquet:"failure"`
		OptP    int32    `parquet:"options_reader_pred"`
		BlindP  int32    `parquet:"blind_reader_pred"`
		CentreP int32    `parquet:"centre_frame_reader_pred"`
		CentreG bool     `parquet:"centre_frame_reader_abstained"`
		ShufP   int32    `parquet:"shuffled_frames_reader_pred"`
		ShufG   bool     `parquet:"shuffled_frames_reader_abstained"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(out, runs.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for i, r := range rows {
		want := int32(0)
		for j, o := range r.Options {
			if len(o) > len(r.Options[want]) {
				want = int32(j)
			}
		}
		if r.OptP != want || r.BlindP != want {
			t.Errorf("item %d: options-reader %d, blind-reader %d; the server favours %d", i, r.OptP, r.BlindP, want)
		}
		if r.Failure == "" && !r.CentreG && !r.ShufG {
			scored++
			if r.CentreP != want || r.ShufP != want {
				t.Errorf("item %d: centre-frame-reader %d, shuffled-frames-reader %d; the server favours %d", i, r.CentreP, r.ShufP, want)
			}
		}
	}
	if scored == 0 {
		t.Error("no item answered by the served VLM")
	}
	filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(servedKey)) {
				t.Errorf("%s holds the API key", path)
			}
		}
		return nil
	})
	cfg, _ := os.ReadFile(filepath.Join(out, runs.ConfigFile))
	for _, want := range []string{"served:lm_reader:fake-lm", "served:vlm_reader:fake-vl"} {
		if !bytes.Contains(cfg, []byte(want)) {
			t.Errorf("config.json does not name %s", want)
		}
	}
	var stages struct {
		Served []struct {
			Role     string  `json:"role"`
			Prompts  int     `json:"prompts"`
			Images   int     `json:"images"`
			Rate     float64 `json:"requests_per_second"`
			Share    float64 `json:"prefix_share"`
			Mode     string  `json:"mode"`
			Failures int     `json:"failed"`
		} `json:"served"`
	}
	b, _ := os.ReadFile(filepath.Join(out, runs.StagesFile))
	if err := json.Unmarshal(b, &stages); err != nil || len(stages.Served) != 2 {
		t.Fatalf("stages.json's served roles: %v\n%s", err, b)
	}
	total := 0
	for _, s := range stages.Served {
		total += s.Prompts
		if s.Prompts == 0 || s.Rate <= 0 || s.Mode != "logprobs" || s.Failures != 0 {
			t.Errorf("stages.json: %+v", s)
		}
		if s.Role == "vlm_reader" && (s.Images == 0 || s.Share <= 0) {
			t.Errorf("stages.json: the vlm_reader sent %d images, prefix share %g", s.Images, s.Share)
		}
	}
	if total != len(srv.bodies) {
		t.Errorf("stages.json counts %d prompts, the server got %d requests", total, len(srv.bodies))
	}
}
