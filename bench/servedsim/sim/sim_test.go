package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
)

func TestImageTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		family string
		w, h   int
		want   int
	}{
		{FamilyQwen25VL, 448, 252, 16*9 + 2},   // 252/28 = 9 rows of 16
		{FamilyQwen25VL, 448, 448, 16*16 + 2},  // square
		{FamilyQwen25VL, 20, 20, 2*2 + 2},      // grown to min_pixels 3136 = 56x56
		{FamilyLlavaOneVision, 448, 252, 2052}, // 729 base + 27 x 48 unpadded + 27 newlines
		{FamilyLlavaOneVision, 384, 384, 729 + 27*27 + 27},
		{FamilyInternVL, 448, 252, 3*256 + 2}, // 2x1 tiles + thumbnail
		{FamilyInternVL, 448, 448, 256 + 2},   // one tile, no thumbnail
		{FamilyFixed, 448, 252, 99},
	} {
		got, err := ImageTokens(c.family, c.w, c.h, 99)
		if err != nil || got != c.want {
			t.Errorf("ImageTokens(%s, %dx%d) = %d, %v; want %d", c.family, c.w, c.h, got, err, c.want)
		}
	}
	if _, err := ImageTokens("blip", 448, 252, 0); err == nil {
		t.Error("an unknown family was accepted")
	}
}

func seqTokens(n int, base uint64) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = base + uint64(i)
	}
	return out
}

func TestCacheReusesLongestPrefixInBlocks(t *testing.T) {
	t.Parallel()
	c := NewCache(4 * BlockSize)
	a := seqTokens(40, 1000)
	c.Insert(blockHashes(a))
	b := append(seqTokens(40, 1000)[:37], 7, 8, 9) // the first 37 tokens shared: two whole blocks
	if got := c.Lookup(blockHashes(b), len(b)); got != 2*BlockSize {
		t.Errorf("cached %d tokens of a prompt sharing 37; want %d", got, 2*BlockSize)
	}
	if got := c.Lookup(blockHashes(a), len(a)); got != 2*BlockSize {
		t.Errorf("cached %d tokens of the same 40-token prompt; want %d", got, 2*BlockSize)
	}
	// A prompt wholly cached still computes its last token's block.
	d := seqTokens(32, 1000)
	if got := c.Lookup(blockHashes(d), len(d)); got != BlockSize {
		t.Errorf("cached %d tokens of a 32-token prompt entirely cached; want %d", got, BlockSize)
	}
	// Past the capacity the least recently used blocks go.
	c.Insert(blockHashes(seqTokens(64, 5000)))
	if c.Len() != 4 {
		t.Errorf("the cache holds %d blocks; capacity 4", c.Len())
	}
	if got := c.Lookup(blockHashes(a), len(a)); got != 0 {
		t.Errorf("cached %d tokens of an evicted prompt", got)
	}
}

func frame(t *testing.T, w, h int, shade byte) *openai.Image {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = shade
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return &openai.Image{MIME: "image/jpeg", Data: b.Bytes()}
}

// TestServerAnswersTheClient asks a running server through vidscreen's
// own client: the reply is read as log-probabilities with the prefilled
// turn, and the counts show the second question on the same frames
// reusing their tokens.
func TestServerAnswersTheClient(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tok, err := NewTokenizer(FamilyQwen25VL, 0)
	if err != nil {
		t.Fatal(err)
	}
	eng := NewEngine(EngineConfig{PrefillRate: 1e9, MaxSeqs: 4, CacheTokens: 1 << 16})
	go eng.Run(ctx)
	srv := NewServer("vlm", eng, tok)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c, err := openai.New(openai.Config{BaseURL: hs.URL + "/v1", Model: "vlm", Chat: true, MaxConcurrent: 1, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	frames := []*openai.Image{frame(t, 448, 252, 10), frame(t, 448, 252, 200)}
	q := openai.Query{ID: "q1", Frames: frames, Prompt: letters.Parts{Kind: letters.KindVisual, Frames: 2, Question: "What happens?", Options: []string{"a dog runs", "a cat sits", "nothing"}}}
	a, err := c.Ask(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if a.Mode != openai.ModeLogprobs || !a.Prefill || len(a.LogProbs) != 3 {
		t.Fatalf("answer %+v: want log-probabilities of 3 options with the prefilled turn", a)
	}
	for i, f := range a.Found {
		if !f {
			t.Errorf("option %d's letter is not among the candidates", i)
		}
	}
	q.Prompt.Question = "What happens next?"
	if _, err := c.Ask(ctx, q); err != nil {
		t.Fatal(err)
	}
	var st Stats
	resp, err := http.Get(hs.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Requests != 2 || st.Images != 4 || st.ImageTokens != 4*146 {
		t.Errorf("counts %+v: want 2 requests, 4 images of 146 tokens", st.Counts)
	}
	// The second request reuses the system turn and both frames: at least
	// 2 x 146 tokens, in whole blocks.
	if st.CachedTokens < 2*146 || st.CachedTokens%BlockSize != 0 || st.PromptTokens != st.CachedTokens+st.ComputedTokens {
		t.Errorf("cached %d, computed %d of %d prompt tokens: want the frames' 292 tokens reused", st.CachedTokens, st.ComputedTokens, st.PromptTokens)
	}
	if st.AskedTwice != 0 {
		t.Errorf("asked twice %d; the two questions differ", st.AskedTwice)
	}
}

func TestServerRefusesWhatVLLMRefuses(t *testing.T) {
	t.Parallel()
	tok, _ := NewTokenizer(FamilyFixed, 10)
	srv := NewServer("m", NewEngine(EngineConfig{PrefillRate: 1e9}), tok)
	for _, c := range []struct {
		name, body string
		status     int
	}{
		{"another model", `{"model":"x","messages":[{"role":"user","content":"hi"}]}`, 404},
		{"no messages", `{"model":"m","messages":[]}`, 400},
		{"top_logprobs past 20", `{"model":"m","messages":[{"role":"user","content":"hi"}],"logprobs":true,"top_logprobs":21}`, 400},
		{"continue and generation prompt", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Answer:"}],"continue_final_message":true}`, 400},
		{"a remote image", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://example.com/a.jpg"}}]}],"add_generation_prompt":true}`, 400},
		{"not JSON", `{`, 400},
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions", bytes.NewBufferString(c.body)))
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, rec.Code, c.status, rec.Body)
		}
	}
}

// TestEngineSharesOnlyComputedBlocks: a prompt admitted after another with
// the same prefix has been computed reuses it; two admitted in the same
// step each compute it, as in vLLM.
func TestEngineSharesOnlyComputedBlocks(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := NewEngine(EngineConfig{PrefillRate: 1e9, MaxSeqs: 8, MaxBatchedTokens: 1 << 20, CacheTokens: 1 << 20})
	prefix := seqTokens(160, 1) // 10 blocks
	prompt := func(tail uint64) Prompt {
		return Prompt{Tokens: append(append([]uint64(nil), prefix...), tail, tail+1)}
	}
	// Two at once, before the engine runs: one step admits both.
	a, _ := e.Submit(prompt(900))
	b, _ := e.Submit(prompt(910))
	go e.Run(ctx)
	<-a
	<-b
	if c := e.Counts(); c.CachedTokens != 0 || c.ComputedTokens != 2*162 {
		t.Fatalf("two in one step: cached %d, computed %d; want 0 and %d", c.CachedTokens, c.ComputedTokens, 2*162)
	}
	d, _ := e.Submit(prompt(920))
	<-d
	if c := e.Counts(); c.CachedTokens != 160 || c.ComputedTokens != 3*162-160 || c.Requests != 3 {
		t.Errorf("after them: %+v; want the prefix's 160 tokens cached", c)
	}
}
