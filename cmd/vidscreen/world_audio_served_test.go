package main

import (
	le "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/audio"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// TestWorldAudioTestServed audits the world with its asr role served by a
// /v1/audio/transcriptions server written here, which hears the WAVs it is
// sent with the tone asr's Go twin (onnxbuild.ToneASR.Transcribe): the
// audit sends only the audio family's tracks (the others have no audio
// stream), and transcript-match answers every audio item from the served
// transcripts, as from the ONNX ones.
func TestWorldAudioTestServed(t *testing.T) {
	t.Parallel()
	dir := audioWorld.path(t)
	// Its own copy of the world's models: models.json is rewritten below.
	mdir := filepath.Join(t.TempDir(), "models")
	copyTree(t, filepath.Join(dir, "models"), mdir)
	tok, err := models.LoadTokenizer(filepath.Join(mdir, "asr", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	feats := audio.New()
	var requests atomic.Int32
	var refuse atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if refuse.Load() {
			http.Error(w, `{"error": {"message": "out of memory"}}`, http.StatusInternalServerError)
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil || r.FormValue("model") != "tone-asr" {
			http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(f)
		samples := make([]float32, (len(b)-44)/2)
		for i := range samples {
			samples[i] = float32(int16(le.LittleEndian.Uint16(b[44+2*i:]))) / 32767
		}
		x, err := feats.Features(samples, 0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text, _ := json.Marshal(tok.Decode((onnxbuild.ToneASR{}).Transcribe(x)))
		fmt.Fprintf(w, `{"text": %s}`, text)
	}))
	defer srv.Close()
	var man map[string]map[string]any
	b, _ := os.ReadFile(filepath.Join(mdir, "models.json"))
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	man["roles"]["asr"] = map[string]any{"server": srv.URL + "/v1", "server_model": "tone-asr"}
	b, _ = json.Marshal(man)
	if err := os.WriteFile(filepath.Join(mdir, "models.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "audit")
	// --keep-yesno: the world's copy and siblings families are bare yes/no items, which every card here must still hold.
	if code, _, errOut := runCmd("audit", "--items", filepath.Join(dir, "items.jsonl"), "--videos", dir,
		"--models", mdir, "--keep-yesno", "--levels", "frame", "--out", out, "--seed", "1", "--quiet"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errOut)
	}
	cards, _ := readCards(t, out)
	audioItems := 0
	for _, c := range cards {
		for _, a := range c.Attackers {
			if a.Name != "transcript-match" {
				continue
			}
			if c.Benchmark == "world-audio" {
				audioItems = c.N
				if a.Accuracy != 1 || a.Answered != c.N || !a.SignificantUncorrected {
					t.Errorf("world-audio: accuracy %v, answered %d of %d", a.Accuracy, a.Answered, c.N)
				}
			} else if a.Answered != 0 {
				t.Errorf("%s: answered %d", c.Benchmark, a.Answered)
			}
		}
	}
	if audioItems == 0 || int(requests.Load()) != audioItems/2 {
		t.Errorf("%d audio items, %d requests: want one request per audio video", audioItems, requests.Load())
	}
	cfg, _ := os.ReadFile(filepath.Join(out, "config.json"))
	if !strings.Contains(string(cfg), `"asr": "served:asr:tone-asr:protocol=1:language=en"`) {
		t.Errorf("config.json does not name the served asr:\n%s", cfg)
	}
	// Resumed, the run asks the server nothing: the transcripts are stored.
	before := requests.Load()
	if code, _, errOut := runCmd("audit", "--items", filepath.Join(dir, "items.jsonl"), "--videos", dir,
		"--models", mdir, "--keep-yesno", "--levels", "frame", "--out", out, "--seed", "1", "--quiet"); code != 0 || requests.Load() != before {
		t.Fatalf("resumed audit: exit %d, %d more requests: %s", code, requests.Load()-before, errOut)
	}
	// Sharded: each shard transcribes its own videos into its cache, which
	// the merge carries: it asks nothing and writes the unsharded outputs.
	before = requests.Load()
	merged, shards, _ := shardAndMerge(t, t.TempDir(), 2, "--items", filepath.Join(dir, "items.jsonl"), "--videos", dir,
		"--models", mdir, "--keep-yesno", "--levels", "frame", "--seed", "1")
	stored := 0
	for _, sh := range shards {
		m, _ := filepath.Glob(filepath.Join(sh, "cache", "transcript-*.json"))
		stored += len(m)
	}
	// One entry per video (those without an audio stream say so), each in
	// the one shard its video falls in.
	videos, _ := filepath.Glob(filepath.Join(dir, "videos", "*.mp4"))
	if stored != len(videos) {
		t.Errorf("the shards stored %d transcripts, want one per video, %d", stored, len(videos))
	}
	if n := requests.Load() - before; int(n) != audioItems/2 {
		t.Errorf("two shards and their merge sent %d requests, want %d (each audio video once)", n, audioItems/2)
	}
	sameRun(t, out, merged, "between the audit and the merge of its two shards")
	// A server that fails every request stops a fresh run, exit 1, naming
	// the endpoint and the server's message.
	refuse.Store(true)
	man["roles"]["asr"] = map[string]any{"server": srv.URL + "/v1", "server_model": "tone-asr", "server_retries": 0}
	b, _ = json.Marshal(man)
	os.WriteFile(filepath.Join(mdir, "models.json"), b, 0o644)
	code, _, errOut := runCmd("audit", "--items", filepath.Join(dir, "items.jsonl"), "--videos", dir,
		"--models", mdir, "--keep-yesno", "--levels", "frame", "--out", filepath.Join(t.TempDir(), "refused"), "--seed", "1", "--quiet")
	if code != 1 || !strings.Contains(errOut, "/v1/audio/transcriptions") || !strings.Contains(errOut, "out of memory") {
		t.Errorf("refusing server: exit %d: %s", code, errOut)
	}
}
