package asr

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/audio"
)

// fakeServer speaks /v1/audio/transcriptions: it reads the multipart form,
// checks the WAV, records what it got, and answers with the number of
// samples and the first one ("n=16000 first=1234"), after failing the
// first fails requests with status failWith.
type fakeServer struct {
	mu       sync.Mutex
	fails    int
	failWith int
	reply    string // a fixed body instead of the JSON answer
	got      []request
}

type request struct {
	fields  map[string]string
	samples int
	rate    int
	auth    string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/audio/transcriptions" || r.Method != http.MethodPost {
		http.Error(w, `{"error": {"message": "no such route"}}`, http.StatusNotFound)
		return
	}
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := request{fields: map[string]string{}, auth: r.Header.Get("Authorization")}
	for k, v := range r.MultipartForm.Value {
		req.fields[k] = v[0]
	}
	fh := r.MultipartForm.File["file"]
	if len(fh) != 1 {
		http.Error(w, `{"error": {"message": "no file"}}`, http.StatusBadRequest)
		return
	}
	file, _ := fh[0].Open()
	b, _ := io.ReadAll(file)
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || binary.LittleEndian.Uint16(b[22:]) != 1 || binary.LittleEndian.Uint16(b[34:]) != 16 {
		http.Error(w, `{"error": {"message": "not a mono 16-bit WAV"}}`, http.StatusBadRequest)
		return
	}
	req.rate = int(binary.LittleEndian.Uint32(b[24:]))
	req.samples = int(binary.LittleEndian.Uint32(b[40:])) / 2
	first := int16(binary.LittleEndian.Uint16(b[44:]))
	f.mu.Lock()
	f.got = append(f.got, req)
	fail := f.fails > 0
	if fail {
		f.fails--
	}
	f.mu.Unlock()
	switch {
	case fail:
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error": {"message": "busy"}}`, f.failWith)
	case f.reply != "":
		io.WriteString(w, f.reply)
	default:
		fmt.Fprintf(w, `{"text": " n=%d first=%d "}`, req.samples, first)
	}
}

func client(t *testing.T, url string, retries int) *Client {
	c, err := New(Config{Server: models.ServerSettings{URL: url + "/v1", Model: "openai/whisper-small", Retries: retries, Concurrency: 2, Timeout: 5 * time.Second},
		APIKey: "k", Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestServedTranscription(t *testing.T) {
	ctx := context.Background()
	track := make([]float32, audio.ChunkSamples+16000)
	track[0], track[audio.ChunkSamples] = 0.5, -2 // the second window's first sample is clipped
	cases := []struct {
		name     string
		srv      *fakeServer
		retries  int
		samples  []float32
		want     string
		requests int
		err      string
	}{
		{"two windows joined", &fakeServer{}, 4, track, "n=480000 first=16384 n=16000 first=-32767", 2, ""},
		{"an empty track asks nothing", &fakeServer{}, 4, nil, "", 0, ""},
		{"500s retried", &fakeServer{fails: 2, failWith: 500}, 4, track[:16000], "n=16000 first=16384", 3, ""},
		{"429 retried", &fakeServer{fails: 1, failWith: 429}, 4, track[:100], "n=100 first=16384", 2, ""},
		{"retries run out", &fakeServer{fails: 9, failWith: 503}, 2, track[:100], "", 3, "after 3 attempts: status 503: busy"},
		{"a 400 is not retried", &fakeServer{fails: 9, failWith: 400}, 4, track[:100], "", 1, "status 400: busy"},
		{"a reply that is not a transcription", &fakeServer{reply: `{"txt": 1}`}, 4, track[:100], "", 1, "reply is not a transcription"},
		{"torn JSON", &fakeServer{reply: `{"text": "a`}, 4, track[:100], "", 1, "reply is not a transcription"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(c.srv)
			defer ts.Close()
			got, err := client(t, ts.URL, c.retries).Transcribe(ctx, c.samples)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "/v1/audio/transcriptions") {
					t.Fatalf("error %v, want one naming the endpoint and %q", err, c.err)
				}
			} else if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
			if len(c.srv.got) != c.requests {
				t.Fatalf("%d requests, want %d", len(c.srv.got), c.requests)
			}
			for _, r := range c.srv.got {
				if r.fields["model"] != "openai/whisper-small" || r.fields["language"] != "en" || r.fields["temperature"] != "0" ||
					r.fields["response_format"] != "json" || r.rate != 16000 || r.auth != "Bearer k" {
					t.Errorf("request %+v", r)
				}
			}
		})
	}
}

func TestServedRefusesRemoteServers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url    string
		remote bool
		ok     bool
	}{
		{"http://127.0.0.1:8000/v1", false, true},
		{"http://localhost:8000/v1", false, true},
		{"http://[::1]:8000/v1", false, true},
		{"http://10.0.0.5:8000/v1", false, false},
		{"http://gpu-node-3:8000/v1", false, false},
		{"http://10.0.0.5:8000/v1", true, true},
		{"ftp://127.0.0.1/v1", false, false},
	} {
		_, err := New(Config{Server: models.ServerSettings{URL: c.url, Model: "m", AllowRemote: c.remote}})
		if (err == nil) != c.ok {
			t.Errorf("%s (allow remote %v): %v", c.url, c.remote, err)
		}
	}
	for addr, ok := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "192.168.1.2:80": false} {
		if err := loopbackOnly("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("loopbackOnly(%s) = %v", addr, err)
		}
	}
}

// TestServedLanguage checks the language each request carries: the
// manifest's, as a code whichever way it is spelled, en without one; and
// that the client's name, which keys the stored transcripts, says it.
func TestServedLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ given, sent string }{{"", "en"}, {"de", "de"}, {"<|DE|>", "de"}, {" yue ", "yue"}} {
		srv := &fakeServer{}
		ts := httptest.NewServer(srv)
		cl, err := New(Config{Server: models.ServerSettings{URL: ts.URL + "/v1", Model: "openai/whisper-small", Concurrency: 1, Timeout: 5 * time.Second}, Language: c.given})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Transcribe(context.Background(), make([]float32, 100)); err != nil {
			t.Fatal(err)
		}
		ts.Close()
		if len(srv.got) != 1 || srv.got[0].fields["language"] != c.sent || !strings.HasSuffix(cl.Name(), "language="+c.sent) {
			t.Errorf("language %q: requests %+v, name %s; want %q sent", c.given, srv.got, cl.Name(), c.sent)
		}
	}
}
