package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A chat request with frames sends them as image_url parts, in place, and
// each decodes back to the frame's exact pixels.
func TestChatWithImages(t *testing.T) {
	t.Parallel()
	w, h := 7, 5
	frames := make([][]byte, 2)
	for f := range frames {
		frames[f] = make([]byte, 3*w*h)
		for i := range frames[f] {
			frames[f][i] = byte(i*13 + f*101)
		}
	}
	reply, err := os.ReadFile(filepath.Join("testdata", "vllm_chat.json"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type     string `json:"type"`
					Text     string `json:"text"`
					ImageURL struct {
						URL string `json:"url"`
					} `json:"image_url"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Errorf("decode request: %v", err)
		}
		parts := req.Messages[0].Content
		types := []string{}
		for _, p := range parts {
			types = append(types, p.Type)
		}
		if got := strings.Join(types, ","); got != "image_url,image_url,text" {
			t.Errorf("part types %s", got)
		}
		for f, p := range parts[:2] {
			b64, ok := strings.CutPrefix(p.ImageURL.URL, "data:image/png;base64,")
			if !ok {
				t.Fatalf("image %d url %.40s", f, p.ImageURL.URL)
			}
			data, _ := base64.StdEncoding.DecodeString(b64)
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					r, g, b, _ := img.At(x, y).RGBA()
					want := frames[f][3*(y*w+x):]
					if byte(r>>8) != want[0] || byte(g>>8) != want[1] || byte(b>>8) != want[2] {
						t.Fatalf("image %d pixel (%d,%d) differs", f, x, y)
					}
				}
			}
		}
		if parts[2].Text != "Which happens first? A. x B. y\nAnswer:" {
			t.Errorf("text part %q", parts[2].Text)
		}
		rw.Write(reply)
	}))
	defer ts.Close()
	c, _ := New(Config{BaseURL: ts.URL + "/v1", Model: "m", Chat: true})
	var msgParts []Part
	for _, f := range frames {
		im, err := RGBImage(f, w, h)
		if err != nil {
			t.Fatal(err)
		}
		msgParts = append(msgParts, Part{Image: im})
	}
	msgParts = append(msgParts, Part{Text: "Which happens first? A. x B. y\nAnswer:"})
	s, err := c.LetterLogProbs(context.Background(), Request{Messages: []Message{{Role: "user", Parts: msgParts}}, Letters: []string{"A", "B"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Letters[s.Best()] != "A" {
		t.Errorf("best %s", s.Letters[s.Best()])
	}
	if _, err := RGBImage(make([]byte, 10), 2, 2); err == nil {
		t.Error("RGBImage accepted 10 bytes for 2x2")
	}
}
