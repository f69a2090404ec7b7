package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"

	runs "github.com/vidscreen/vidscreen/harness/run"
	"github.com/vidscreen/vidscreen/harness/rundir"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// longestOption is a served model that favours the letter of the longest
// option shown (ties: the first), so the answer of every model reader
// follows from its item whatever the order its options are shown in.
func longestOption(r *openaitest.Request) openaitest.Reply {
	best, bestLen := "A", -1
	for _, line := range strings.Split(r.User(), "\n") {
		if len(line) > 2 && line[0] >= 'A' && line[0] <= 'P' && line[1] == '.' && len(line) > bestLen {
			best, bestLen = line[:1], len(line)
		}
	}
	other := "A"
	if best == "A" {
		other = "B"
	}
	return openaitest.Reply{Top: map[string]float64{best: 0.6, " " + best: 0.1, other: 0.2, "x": 0.1}}
}

// captionOrLongest captions a frame (a generating request: the reply is
// the caption) and answers a reader's question as longestOption does.
func captionOrLongest(r *openaitest.Request) openaitest.Reply {
	if r.MaxTokens > 1 {
		return openaitest.Reply{Text: fmt.Sprintf("a frame of %d bytes", len(r.Messages[0].Images[0].Data))}
	}
	return longestOption(r)
}

// longest is the index of an item's longest option (ties: the first).
func longest(options []string) int32 {
	want := 0
	for j, o := range options {
		if len(o) > len(options[want]) {
			want = j
		}
	}
	return int32(want)
}

// servedModels writes a models directory whose roles are modelsDir's (none
// when modelsDir is ""), with lm_reader and the roles named served at url
// with conc requests in flight (their key in the variable
// VIDSCREEN_TEST_KEY): lm_reader as fake-lm, the others as fake-vl.
func servedModels(t *testing.T, modelsDir, url string, conc int, also ...string) string {
	t.Helper()
	man := map[string]map[string]json.RawMessage{"roles": {}}
	if modelsDir != "" {
		b, err := os.ReadFile(filepath.Join(modelsDir, models.ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &man); err != nil {
			t.Fatal(err)
		}
	}
	roles := map[string]string{"lm_reader": "fake-lm"}
	for _, r := range also {
		roles[r] = "fake-vl"
	}
	for role, name := range roles {
		man["roles"][role] = json.RawMessage(fmt.Sprintf(`{"server": %q, "server_model": %q, "server_retries": 1, "server_concurrency": %d, "server_api_key_env": "VIDSCREEN_TEST_KEY"}`, url, name, conc))
	}
	dir := filepath.Join(t.TempDir(), "models")
	os.MkdirAll(dir, 0o755)
	entries, _ := os.ReadDir(modelsDir)
	for _, e := range entries {
		if e.IsDir() {
			os.Symlink(filepath.Join(modelsDir, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	b, _ := json.Marshal(man)
	os.WriteFile(filepath.Join(dir, models.ManifestFile), b, 0o644)
	return dir
}

// runWithKey runs vidscreen with VIDSCREEN_TEST_KEY set to key.
func runWithKey(key string, args ...string) (int, string, string) {
	var o, e bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &o, stderr: &e, getenv: func(k string) string {
		switch k {
		case "VIDSCREEN_TEST_KEY":
			return key
		case models.LibraryEnv:
			return os.Getenv(k)
		}
		return ""
	}}
	code := run(context.Background(), args, env)
	return code, o.String(), e.String()
}

const servedKey = "sk-served-test-secret-1234"

// TestAuditServedReaders: an audit whose lm_reader, vlm_reader and
// captioner are served (the captioner: one frame a request, nothing of the
// item) asks the server for every model reader's prompts (options-only:
// no question, no image; blind: the question, no image; centre-frame: one
// image; shuffled, tenth and in-order: 32 or fewer frames, images first),
// and each reader's answer is the letter the server's log-probabilities
// favour; --reference-model reads s* from the served model. No file of the
// run directory holds the API key; config.json names the served models;
// stages.json counts the served roles.
func TestAuditServedReaders(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := videoFixture(t)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl"}, Answer: captionOrLongest})
	defer srv.Close()
	dir := servedModels(t, modelsDir, srv.BaseURL(), 8, "vlm_reader", "captioner")
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--videos", root, "--models", dir, "--levels", "option,text,frame,order", "--workers", "1", "--reference-model")
	if code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	byImages := map[int]int{}
	var optionsOnly, blind int
	var reqs []openaitest.Request
	captions := 0
	for _, r := range srv.Requests() {
		if r.MaxTokens > 1 { // a caption: one frame, no question, nothing of the item
			captions++
			if r.Images() != 1 || strings.Contains(r.User(), "Question") || strings.Contains(r.User(), "Options") {
				t.Errorf("a caption request of %d images: %q", r.Images(), r.User())
			}
			continue
		}
		reqs = append(reqs, r)
	}
	if captions == 0 {
		t.Error("the served captioner was asked nothing")
	}
	for _, r := range reqs {
		text, n := r.User(), r.Images()
		byImages[n]++
		if r.MaxTokens != 1 || *r.Temperature != 0 || r.TopLogprobs != 20 || !r.ContinueFinalMessage {
			t.Errorf("request parameters: max_tokens %d, top_logprobs %d, prefill %v", r.MaxTokens, r.TopLogprobs, r.ContinueFinalMessage)
		}
		if (n > 0) != (r.Model == "fake-vl") {
			t.Errorf("a request of %d images to %s", n, r.Model)
		}
		switch {
		case n == 0 && !strings.Contains(text, "Question:"):
			optionsOnly++
		case n == 0:
			blind++
		}
		if n > runs.ProbeFrames {
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
	rows, err := parquet.ReadFile[row](filepath.Join(out, rundir.ItemsParquet))
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for i, r := range rows {
		want := longest(r.Options)
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
	cfg, _ := os.ReadFile(filepath.Join(out, rundir.ConfigFile))
	var refCfg struct {
		Reference struct {
			VLMReader string `json:"vlm_reader"`
		} `json:"reference_model"`
	}
	if json.Unmarshal(cfg, &refCfg); !strings.HasPrefix(refCfg.Reference.VLMReader, "served:vlm_reader:fake-vl") {
		t.Errorf("config.json's reference model %q, want the served vlm_reader", refCfg.Reference.VLMReader)
	}
	for _, want := range []string{"served:lm_reader:fake-lm", "served:vlm_reader:fake-vl", "served:captioner:fake-vl"} {
		if !bytes.Contains(cfg, []byte(want)) {
			t.Errorf("config.json does not name %s", want)
		}
	}
	var stages struct {
		Served []struct {
			Role     string  `json:"role"`
			Queries  int     `json:"queries"`
			Requests int     `json:"requests"`
			Images   int     `json:"images"`
			Rate     float64 `json:"requests_per_second"`
			Share    float64 `json:"prefix_share"`
			Mode     string  `json:"mode"`
			Failures int     `json:"failed"`
		} `json:"served"`
	}
	b, _ := os.ReadFile(filepath.Join(out, rundir.StagesFile))
	if err := json.Unmarshal(b, &stages); err != nil || len(stages.Served) != 3 {
		t.Fatalf("stages.json's served roles: %v\n%s", err, b)
	}
	total := 0
	for _, s := range stages.Served {
		if s.Role == "captioner" {
			if s.Queries != captions || s.Mode != "generate" {
				t.Errorf("stages.json: captioner %+v, the server captioned %d frames", s, captions)
			}
			continue
		}
		total += s.Requests
		if s.Queries == 0 || s.Rate <= 0 || s.Mode != "logprobs" || s.Failures != 0 {
			t.Errorf("stages.json: %+v", s)
		}
		if s.Role == "vlm_reader" && (s.Images == 0 || s.Share <= 0) {
			t.Errorf("stages.json: the vlm_reader sent %d images, prefix share %g", s.Images, s.Share)
		}
	}
	if total != len(reqs) {
		t.Errorf("stages.json counts %d requests, the server got %d", total, len(reqs))
	}

	// A run killed once every reply was stored, before any cache or output
	// was written, resumed: it asks the server nothing and writes what the
	// whole run wrote.
	resumed := filepath.Join(t.TempDir(), "resumed")
	os.MkdirAll(filepath.Join(resumed, rundir.CacheDir), 0o755)
	for _, f := range []string{rundir.ConfigFile, filepath.Join(rundir.CacheDir, runs.ServedStoreFile)} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(resumed, f), b, 0o644)
	}
	srv.Reset()
	if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", resumed, "--videos", root, "--models", dir, "--levels", "option,text,frame,order", "--workers", "1", "--reference-model"); code != 0 {
		t.Fatalf("resumed audit: exit %d\n%s", code, stderr)
	}
	for _, r := range srv.Requests() {
		if r.MaxTokens == 1 {
			t.Errorf("the resumed run asked a reader's question again (%d images)", r.Images())
		}
	}
	for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, _ := os.ReadFile(filepath.Join(resumed, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the run and its resumption", f)
		}
	}
}

// TestAuditServedFaults: on a text audit with a served lm_reader, the
// items whose requests the server fails after its retries fail alone, with
// reason server in items.parquet (the others are answered from the
// server); the outputs are the same at 1 and 8 requests in flight. Their
// answers are not stored: the run resumed once the server has recovered
// asks those prompts alone again and writes what a fresh audit against the
// healthy server writes. Failures over --max-server-failures (1% of the
// queries by default; 0.1% here) exit 1 naming the server, the count and the command that
// resumes, the outputs written all the same. A server refusing every
// request stops the run with exit 1, naming its URL and message.
func TestAuditServedFaults(t *testing.T) {
	t.Parallel()
	items := demoSubset(t, 40)
	var first struct {
		Question string `json:"question"`
	}
	b, _ := os.ReadFile(items)
	json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &first)
	var healthy atomic.Bool
	failing := func(r *openaitest.Request, attempt int) openaitest.Fault {
		if !healthy.Load() && strings.Contains(r.User(), first.Question) {
			return openaitest.Fault{Status: 503}
		}
		return openaitest.Fault{}
	}
	type row struct {
		Question string   `parquet:"question"`
		Options  []string `parquet:"options,list"`
		Failure  string   `parquet:"failure"`
		OptP     int32    `parquet:"options_reader_pred"`
		OptG     bool     `parquet:"options_reader_abstained"`
		BlindP   int32    `parquet:"blind_reader_pred"`
		BlindG   bool     `parquet:"blind_reader_abstained"`
	}
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Answer: longestOption, Fault: failing})
	defer srv.Close()
	var outs []string
	for _, conc := range []int{1, 8} {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("conc%d", conc))
		args := []string{"audit", "--items", items, "--out", out, "--models", servedModels(t, "", srv.BaseURL(), conc), "--levels", "option,text"}
		if conc == 1 {
			// One item of 40 is 10 of the 3,200 queries (0.3%), over
			// --max-server-failures 0.001: exit 1 naming the server, the
			// count and the command that resumes, the outputs written all
			// the same.
			code, _, stderr := runWithKey(servedKey, append(args, "--max-server-failures", "0.001")...)
			if code != 1 || !strings.Contains(stderr, srv.BaseURL()) || !regexp.MustCompile(`failed \d+ of its \d+ queries`).MatchString(stderr) ||
				!strings.Contains(stderr, "vidscreen audit --items "+items+" --levels option,text --max-server-failures 0.001 --models ") || !strings.Contains(stderr, "--out "+out) {
				t.Fatalf("a server failing 0.3%% of the queries: exit %d, want 1 naming the server, the count and the command that resumes:\n%s", code, stderr)
			}
		} else if code, _, stderr := runWithKey(servedKey, args...); code != 0 {
			t.Fatalf("concurrency %d: exit %d (0.3%% of the queries failed, under the default 1%%)\n%s", conc, code, stderr)
		}
		rows, err := parquet.ReadFile[row](filepath.Join(out, rundir.ItemsParquet))
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for i, r := range rows {
			if r.Failure != "" {
				failed++
				if r.Failure != letters.FailureServer || r.Question != first.Question {
					t.Errorf("item %d (%q) failed for %q; want %q on the failing question's items only", i, r.Question, r.Failure, letters.FailureServer)
				}
				continue
			}
			if r.Question == first.Question {
				t.Errorf("item %d: the failing question's item did not fail", i)
			}
			if r.BlindG || r.BlindP != longest(r.Options) || !r.OptG && r.OptP != longest(r.Options) {
				t.Errorf("item %d: options-reader %d, blind-reader %d (abstained %v); the server favours %d", i, r.OptP, r.BlindP, r.BlindG, longest(r.Options))
			}
		}
		if failed == 0 || failed == len(rows) {
			t.Errorf("concurrency %d: %d of %d items failed; want those of the failing question only", conc, failed, len(rows))
		}
		outs = append(outs, out)
	}
	for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
		a, _ := os.ReadFile(filepath.Join(outs[0], f))
		b, _ := os.ReadFile(filepath.Join(outs[1], f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between concurrency 1 and 8", f)
		}
	}

	// The cards count the failed items under server, apart from failed videos.
	md, _ := os.ReadFile(filepath.Join(outs[0], rundir.CardsMarkdown))
	cj, _ := os.ReadFile(filepath.Join(outs[0], rundir.CardsJSON))
	if !bytes.Contains(md, []byte("Items a served reader's server failed on after its retries")) || bytes.Contains(md, []byte("Items whose video failed")) || !bytes.Contains(cj, []byte(`"server": `)) {
		t.Errorf("the cards do not count the items the server failed on apart from failed videos:\n%s", md)
	}

	// The server recovers: the first run resumed asks the failed prompts
	// again (and nothing else), and its outputs are a fresh audit's.
	healthy.Store(true)
	srv.Reset()
	dir := servedModels(t, "", srv.BaseURL(), 8)
	if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", outs[0], "--models", dir, "--levels", "option,text"); code != 0 {
		t.Fatalf("resumed against the healthy server: exit %d\n%s", code, stderr)
	}
	asked := srv.Requests()
	if len(asked) == 0 {
		t.Error("the resumed run asked nothing: the failed prompts' answers were kept")
	}
	for _, r := range asked {
		if !strings.Contains(r.User(), first.Question) {
			t.Errorf("the resumed run asked an answered prompt again: %q", r.User())
		}
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", fresh, "--models", dir, "--levels", "option,text"); code != 0 {
		t.Fatalf("fresh audit against the healthy server: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
		a, _ := os.ReadFile(filepath.Join(fresh, f))
		b, _ := os.ReadFile(filepath.Join(outs[0], f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the resumed run and a fresh audit against the healthy server", f)
		}
	}

	// lm_reader as a list: every served entry after the first is a further
	// model of the blind test, blind-reader#2, asked under its own name.
	two := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-lm2"}, Answer: longestOption})
	defer two.Close()
	listDir := t.TempDir()
	os.WriteFile(filepath.Join(listDir, models.ManifestFile), []byte(fmt.Sprintf(`{"roles": {"lm_reader": [
		{"server": %q, "server_model": "fake-lm"}, {"server": %q, "server_model": "fake-lm2"}]}}`, two.BaseURL(), two.BaseURL())), 0o644)
	listOut := filepath.Join(t.TempDir(), "list")
	if code, _, stderr := runWithKey("", "audit", "--items", items, "--out", listOut, "--models", listDir, "--levels", "option,text"); code != 0 {
		t.Fatalf("two served lm_reader entries: exit %d\n%s", code, stderr)
	}
	byModel := map[string]int{}
	for _, r := range two.Requests() {
		byModel[r.Model]++
	}
	cards, _ := os.ReadFile(filepath.Join(listOut, rundir.CardsJSON))
	if byModel["fake-lm"] == 0 || byModel["fake-lm2"] == 0 || !bytes.Contains(cards, []byte("blind-reader#2")) {
		t.Errorf("requests by model %v; blind-reader#2 on the cards: %v", byModel, bytes.Contains(cards, []byte("blind-reader#2")))
	}

	refusing := openaitest.New(openaitest.Config{Models: []string{"fake-lm"}, Fault: func(*openaitest.Request, int) openaitest.Fault { return openaitest.Fault{Status: 401} }})
	defer refusing.Close()
	code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", filepath.Join(t.TempDir(), "refused"), "--models", servedModels(t, "", refusing.BaseURL(), 8), "--levels", "option,text")
	if code != 1 || !strings.Contains(stderr, refusing.BaseURL()) || !strings.Contains(stderr, "injected fault 401") {
		t.Errorf("a server refusing everything: exit %d, want 1 naming its URL and message:\n%s", code, stderr)
	}
}

// TestAuditServedWorld audits the planted world with lm_reader and
// vlm_reader served, at 1, 8 and 64 requests in flight (1 and 8 with
// -short): the outputs are byte-identical, and the served roles' rates and prefix shares, logged,
// are the figures docs/models.md gives for the test server.
func TestAuditServedWorld(t *testing.T) {
	t.Parallel()
	items, root, modelsDir := worldFixture(t)
	srv := openaitest.New(openaitest.Config{Models: []string{"fake-lm", "fake-vl"}, Answer: longestOption})
	defer srv.Close()
	concs := []int{1, 8, 64}
	if testing.Short() {
		concs = concs[:2]
	}
	var first string
	for _, conc := range concs {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("conc%d", conc))
		code, _, stderr := runWithKey(servedKey, "audit", "--items", items, "--out", out, "--videos", root, "--models", servedModels(t, modelsDir, srv.BaseURL(), conc, "vlm_reader"), "--quiet")
		if code != 0 {
			t.Fatalf("concurrency %d: exit %d\n%s", conc, code, stderr)
		}
		var stages struct {
			Served []runs.ServedStage `json:"served"`
		}
		b, _ := os.ReadFile(filepath.Join(out, rundir.StagesFile))
		if err := json.Unmarshal(b, &stages); err != nil || len(stages.Served) != 2 {
			t.Fatalf("stages.json: %v\n%s", err, b)
		}
		for _, s := range stages.Served {
			t.Logf("concurrency %d: %s: %d queries, %d requests, %d images, %.0f requests/s, prefix share %.3f, mode %s, prefill %v",
				conc, s.Role, s.Queries, s.Requests, s.Images, s.RequestsPerSecond, s.PrefixShare, s.Mode, s.Prefill)
			if s.Role == "vlm_reader" && s.PrefixShare <= 0 {
				t.Errorf("no vlm_reader query shared its group's frames")
			}
		}
		if first == "" {
			first = out
			continue
		}
		for _, f := range []string{rundir.ItemsParquet, rundir.CardsJSON} {
			a, _ := os.ReadFile(filepath.Join(first, f))
			b, _ := os.ReadFile(filepath.Join(out, f))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s differs between concurrency 1 and %d", f, conc)
			}
		}
	}
}
