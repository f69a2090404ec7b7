package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/harness/vidomni"
	"github.com/vidscreen/vidscreen/internal/shareddata"
	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/onnxbuild"
)

// writeVidomniModels writes a models directory with the roles the local
// verifier and caption writer use: image_text (tiny CLIP), captioner and
// vlm_reader (its decoder takes 512 positions: the paper's prompt alone is
// about 200 tokens), random weights, real export names.
func writeVidomniModels(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bert, err := os.ReadFile(bertTokenizerFile())
	if err != nil {
		t.Fatal(err)
	}
	clipTok := bert
	if p, err := shareddata.Lookup("tokenizers", "clip_bpe_tokenizer.json"); err == nil {
		if b, err := os.ReadFile(p); err == nil {
			clipTok = b
		}
	}
	vlmText := onnxbuild.TinyVLMText
	vlmText.MaxPos = 512
	for _, m := range []struct {
		sub   string
		write func(string) error
		tok   []byte
	}{
		{"clip", onnxbuild.NewCLIP(onnxbuild.TinyCLIP).WriteDir, clipTok},
		{"captioner", onnxbuild.NewCaptioner(onnxbuild.TinyCaptionerVision, onnxbuild.TinyCaptionerText, 4).WriteDir, bert},
		{"vlm", onnxbuild.NewVLM(onnxbuild.TinyVLMVision, vlmText, 5).WriteDir, bert},
	} {
		sub := filepath.Join(dir, m.sub)
		if err := m.write(sub); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "tokenizer.json"), m.tok, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := `{"roles": {
  "image_text": {"dir": "clip", "max_length": 77},
  "captioner": {"dir": "captioner", "max_new_tokens": 8},
  "vlm_reader": {"dir": "vlm", "max_length": 512}
}}`
	if err := os.WriteFile(filepath.Join(dir, models.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// vidomniLabels writes labels for pairs on the shared videos (the
// sentences describe Big Buck Bunny and the SMPTE bars, with invented
// hallucinations), plus one pair whose video does not exist.
func vidomniLabels(t *testing.T, videos string) string {
	t.Helper()
	type s = map[string]any
	pairs := []s{
		{"pair": "bbb-a", "video": "big_buck_bunny_0_30_h264_640.mp4", "source": "captioner", "type": 2, "duration": 30, "sentences": []s{
			{"text": "A large grey rabbit steps out of a burrow in a green meadow.", "label": "Correct"},
			{"text": "A red sports car drives across the grass.", "label": "Incorrect", "categories": []string{"Illusion"}},
			{"text": "The rabbit stretches and yawns.", "label": "Correct"},
			{"text": "Birds sing in the trees.", "label": "Unknown"}}},
		{"pair": "bbb-b", "video": "big_buck_bunny_0_30.webm", "source": "vlm_reader", "type": 2, "duration": 30, "sentences": []s{
			{"text": "The sun rises over a hill.", "label": "Correct"},
			{"text": "The rabbit jumps three times.", "label": "Incorrect", "categories": []string{"Frequency"}},
			{"text": "Snow covers the meadow.", "label": "Incorrect", "categories": []string{"Object", "State Change"}}}},
		{"pair": "bars", "video": "smpte-2997.mp4", "source": "captioner", "type": 1, "duration": 10, "sentences": []s{
			{"text": "Colour bars fill the screen.", "label": "Correct"},
			{"text": "A man reads the news.", "label": "Incorrect", "categories": []string{"Illusion"}}}},
		{"pair": "gone", "video": "no_such_video.mp4", "source": "captioner", "type": 1, "duration": 10, "sentences": []s{
			{"text": "Nothing.", "label": "Correct"}}},
	}
	var b bytes.Buffer
	for _, p := range pairs {
		line, _ := json.Marshal(p)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "labels.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type verdictOut struct {
	Pair, Verifier string
	Labels         []int8
	Similarity     []float64
}

func readVerdictLines(t *testing.T, path string) []verdictOut {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []verdictOut
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v verdictOut
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// The whole loop on the shared videos with the project's tiny models:
// captions written, sentences verified by similarity (threshold fitted)
// and by the VLM with the paper's prompt, and the verdicts scored.
func TestVidomniEndToEnd(t *testing.T) {
	t.Parallel()
	needORT(t)
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	videos := filepath.Dir(video)
	modelDir := writeVidomniModels(t)
	labels := vidomniLabels(t, videos)
	dir := t.TempDir()
	common := []string{"--labels", labels, "--models", modelDir, "--videos", videos, "--frames", "4"}

	sim := filepath.Join(dir, "similarity.jsonl")
	code, stdout, stderr := runCmd(append([]string{"vidomni", "verify", "--out", sim}, common...)...)
	if code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "threshold ") || !strings.Contains(stdout, "fitted on") || !strings.Contains(stdout, "3 verdicts") {
		t.Errorf("verify stdout: %s", stdout)
	}
	if !strings.Contains(stderr, "skipped no_such_video.mp4") {
		t.Errorf("the missing video is not reported: %q", stderr)
	}
	got := readVerdictLines(t, sim)
	want := map[string]int{"bbb-a": 4, "bbb-b": 3, "bars": 2}
	if len(got) != len(want) {
		t.Fatalf("%d verdicts, want %d", len(got), len(want))
	}
	for _, v := range got {
		if len(v.Labels) != want[v.Pair] || len(v.Similarity) != want[v.Pair] || v.Verifier != "image_text-similarity" {
			t.Errorf("verdict %+v", v)
		}
		for _, s := range v.Similarity {
			if !(s >= -1.0001 && s <= 1.0001) {
				t.Errorf("pair %s: cosine %v out of [-1, 1]", v.Pair, s)
			}
		}
	}

	// The same run with one decoder gives the same bytes.
	again := filepath.Join(dir, "again.jsonl")
	if code, _, stderr := runCmd(append([]string{"vidomni", "verify", "--out", again, "--workers", "1"}, common...)...); code != 0 {
		t.Fatalf("verify --workers 1: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(sim)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("verdicts differ between worker counts")
	}

	// With --cache, the first run stores the three videos' frame
	// embeddings and the second reads them: same verdicts, nothing decoded.
	cache := filepath.Join(dir, "cache")
	for run, want := range []string{"0 videos read, 3 stored", "3 videos read, 0 stored"} {
		cached := filepath.Join(dir, fmt.Sprintf("cached%d.jsonl", run))
		code, stdout, stderr := runCmd(append([]string{"vidomni", "verify", "--out", cached, "--cache", cache}, common...)...)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("cached run %d: exit %d, stdout %q, stderr %q; want %q", run, code, stdout, stderr, want)
		}
		if c, _ := os.ReadFile(cached); !bytes.Equal(a, c) {
			t.Errorf("cached run %d: verdicts differ from the uncached run", run)
		}
	}

	// A threshold above every cosine flags every sentence.
	all := filepath.Join(dir, "all.jsonl")
	if code, _, stderr := runCmd(append([]string{"vidomni", "verify", "--out", all, "--threshold", "1.5", "--verifier", "flag-all"}, common...)...); code != 0 {
		t.Fatalf("verify --threshold: exit %d: %s", code, stderr)
	}
	for _, v := range readVerdictLines(t, all) {
		for _, l := range v.Labels {
			if l != 1 {
				t.Fatalf("threshold 1.5 left a sentence unflagged: %+v", v)
			}
		}
	}

	vlm := filepath.Join(dir, "vlm.jsonl")
	code, stdout, stderr = runCmd(append([]string{"vidomni", "verify", "--out", vlm, "--method", "vlm"}, common...)...)
	if code != 0 {
		t.Fatalf("verify --method vlm: exit %d: %s", code, stderr)
	}
	for _, v := range readVerdictLines(t, vlm) {
		if len(v.Labels) != want[v.Pair] || v.Verifier != "vlm_reader" || v.Similarity != nil {
			t.Errorf("vlm verdict %+v", v)
		}
	}

	// The pair "gone" has no video, so no verifier judged it: scored only
	// with --allow-missing, as 0.
	out := filepath.Join(dir, "scores")
	code, stdout, stderr = runCmd("vidomni", "score", "--labels", labels, "--verdicts", sim, "--verdicts", vlm, "--verdicts", all, "--out", out, "--allow-missing")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	var scores struct {
		Verifiers map[string]struct{ Pairs int }
		Ensembles map[string]json.RawMessage
		Matrix    map[string]map[string]struct{ Self bool }
	}
	data, err := os.ReadFile(filepath.Join(out, "scores.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &scores); err != nil {
		t.Fatal(err)
	}
	if len(scores.Verifiers) != 3 || scores.Verifiers["vlm_reader"].Pairs != 4 || len(scores.Ensembles) != 3 {
		t.Errorf("scores.json: %s", data)
	}
	if !scores.Matrix["vlm_reader"]["vlm_reader"].Self {
		t.Error("vlm_reader on its own captions is not marked self-verification")
	}

	caps := filepath.Join(dir, "captions.jsonl")
	code, stdout, stderr = runCmd("vidomni", "caption", "--models", modelDir, "--frames", "3", "--out", caps, video, filepath.Join(videos, "smpte-2997.mp4"))
	if code != 0 {
		t.Fatalf("caption: exit %d: %s", code, stderr)
	}
	data, _ = os.ReadFile(caps)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("captions:\n%s", data)
	}
	for _, l := range lines {
		var c struct {
			Video, Source, Caption string
			Sentences              []string
			Frames                 int
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		if c.Source != "captioner" || c.Frames != 3 || c.Caption == "" || len(c.Sentences) == 0 || len(c.Sentences) > 3 {
			t.Errorf("caption %+v", c)
		}
	}
	// The captions go straight to a verifier; unlabelled, they need a
	// threshold from elsewhere.
	capVerdicts := filepath.Join(dir, "captions-verdicts.jsonl")
	if code, _, stderr := runCmd("vidomni", "verify", "--captions", caps, "--models", modelDir, "--frames", "3", "--out", capVerdicts); code != 2 || !strings.Contains(stderr, "--fit FILE or --threshold T") {
		t.Errorf("verify --captions without a threshold: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = runCmd("vidomni", "verify", "--captions", caps, "--models", modelDir, "--frames", "3", "--fit", labels, "--videos", videos, "--out", capVerdicts)
	if code != 0 || !strings.Contains(stdout, "fitted on "+labels) {
		t.Fatalf("verify --captions --fit: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	cv := readVerdictLines(t, capVerdicts)
	if len(cv) != 2 || cv[0].Pair != "captioner/"+video {
		t.Errorf("verdicts on the captions: %+v", cv)
	}
	if code, _, _ := runCmd("vidomni", "caption", "--models", modelDir, "--out", caps, filepath.Join(dir, "nope.mp4")); code != 2 {
		t.Errorf("caption of a missing video: exit %d, want 2", code)
	}
}

// fakeVLMServer answers chat completions as a generating VLM would: the
// verification prompt gets the paper's reply format (flagging sentences
// that mention a car, snow or a man), except for the colour bars, which
// get prose that cannot be parsed; a captioning instruction gets a dense
// caption. It checks that every request carries the frames.
func fakeVLMServer(t *testing.T, frames int) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content []struct {
					Type string
					Text string
				}
			}
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 1 {
			t.Errorf("request: %v", err)
			http.Error(w, "bad request", 400)
			return
		}
		images, text := 0, ""
		for _, p := range req.Messages[0].Content {
			if p.Type == "image_url" {
				images++
			} else {
				text += p.Text
			}
		}
		if images != frames {
			t.Errorf("%d images in the request, want %d", images, frames)
		}
		var reply string
		switch {
		case strings.HasPrefix(text, vidomni.VerificationInstruction):
			if strings.Contains(text, "Colour bars") {
				reply = "All of the sentences look right to me."
				break
			}
			var labels []string
			for _, line := range strings.Split(text, "\n") {
				if !strings.HasPrefix(line, "Sentence ") {
					continue
				}
				v := "0"
				if strings.Contains(line, " car ") || strings.Contains(line, "Snow") || strings.Contains(line, "man reads") {
					v = "1"
				}
				labels = append(labels, fmt.Sprintf(`"sentence_%d": %s`, len(labels)+1, v))
			}
			reply = "```json\n{" + strings.Join(labels, ", ") + "}\n```\nReasons follow."
		case slices.Contains(vidomni.CaptioningInstructions, text):
			reply = "The video opens with Mr. Lee in a 3.5 m wide meadow. A rabbit yawns... then stretches.\n\nIt leaves."
		default:
			t.Errorf("unexpected prompt %q", text)
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}}})
	}))
	t.Cleanup(ts.Close)
	return ts
}

// A generating model behind a local server gets the paper's prompts; its
// replies are stored raw, parsed when scored, and the one in prose is
// counted as unparsed.
func TestVidomniServer(t *testing.T) {
	t.Parallel()
	video := sharedVideo(t, "big_buck_bunny_0_30_h264_640.mp4")
	videos := filepath.Dir(video)
	labels := vidomniLabels(t, videos)
	ts := fakeVLMServer(t, 2)
	dir := t.TempDir()
	verdicts := filepath.Join(dir, "server.jsonl")
	code, stdout, stderr := runCmd("vidomni", "verify", "--method", "server", "--server", ts.URL+"/v1", "--server-model", "fake-vlm",
		"--labels", labels, "--videos", videos, "--frames", "2", "--out", verdicts)
	if code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "2 of 3 replies parse") {
		t.Errorf("stdout: %s", stdout)
	}
	out := filepath.Join(dir, "scores")
	if code, _, stderr := runCmd("vidomni", "score", "--labels", labels, "--verdicts", verdicts, "--out", out); code != 2 || !strings.Contains(stderr, `"fake-vlm" gave no verdict on pair "gone"`) {
		t.Fatalf("score without the video of pair gone: exit %d, %s; want 2 naming the pair", code, stderr)
	}
	if code, _, stderr := runCmd("vidomni", "score", "--labels", labels, "--verdicts", verdicts, "--out", out, "--allow-missing"); code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	var scores struct {
		Verifiers map[string]struct {
			Precision, Recall, F1    float64
			Pairs, Unparsed, Missing int
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, "scores.json"))
	if err := json.Unmarshal(data, &scores); err != nil {
		t.Fatal(err)
	}
	// bbb-a: the car flagged, nothing else: P 1, R 1. bbb-b: snow
	// flagged, the three jumps missed: P 1, R 1/2, F1 2/3. bars: unparsed,
	// 0. gone: no verdict, 0. Means over 4 pairs: P 1/2, R 3/8, F1 5/12.
	v := scores.Verifiers["fake-vlm"]
	if v.Pairs != 4 || v.Unparsed != 1 || v.Missing != 1 || math.Abs(v.Precision-0.5) > 1e-9 || math.Abs(v.Recall-0.375) > 1e-9 || math.Abs(v.F1-5.0/12) > 1e-9 {
		t.Errorf("fake-vlm scores %+v", v)
	}

	caps := filepath.Join(dir, "captions.jsonl")
	code, _, stderr = runCmd("vidomni", "caption", "--server", ts.URL+"/v1", "--server-model", "fake-vlm", "--frames", "2", "--seed", "3", "--out", caps, video)
	if code != 0 {
		t.Fatalf("caption: exit %d: %s", code, stderr)
	}
	var c struct {
		Video, Source string
		Sentences     []string
		Instruction   int
	}
	data, _ = os.ReadFile(caps)
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	want := []string{"The video opens with Mr. Lee in a 3.5 m wide meadow.", "A rabbit yawns... then stretches.", "It leaves."}
	if c.Source != "fake-vlm" || !slices.Equal(c.Sentences, want) || c.Instruction != vidomni.InstructionFor(video, 3)+1 {
		t.Errorf("caption %+v", c)
	}
	if code, _, _ := runCmd("vidomni", "caption", "--server", "http://192.0.2.1/v1", "--server-model", "m", "--out", caps, video); code != 2 {
		t.Errorf("a remote server: exit %d, want 2", code)
	}
}
