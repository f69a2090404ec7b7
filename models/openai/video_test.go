package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestChatBodyVideo: with Frames "video" a message's frames go as one
// video_url part, vLLM's "data:video/jpeg;base64,<frame>,<frame>" in their
// order, before the text; with images, one image_url part a frame; a frame
// that is not a JPEG cannot go in a video.
func TestChatBodyVideo(t *testing.T) {
	t.Parallel()
	frames := testFrames(t, 3)
	png, err := RGBImage(make([]byte, 3*4*4), 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(im *Image) string { return base64.StdEncoding.EncodeToString(im.Data) }
	video := `{"type":"video_url","video_url":{"url":"data:video/jpeg;base64,` + b64(frames[0]) + "," + b64(frames[1]) + "," + b64(frames[2]) + `"}}`
	for _, tc := range []struct {
		name   string
		video  bool
		frames []*Image
		want   string // the user turn's content, or the error's text
		bad    bool
	}{
		{"video", true, frames, `[` + video + `,{"type":"text","text":"Q"}]`, false},
		{"images", false, frames[:2], `[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + b64(frames[0]) + `"}},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + b64(frames[1]) + `"}},{"type":"text","text":"Q"}]`, false},
		{"a PNG in a video", true, []*Image{frames[0], png}, "message 0: frame 1 is image/png; a video_url part carries JPEG frames (video/jpeg)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := []Part{}
			for _, f := range tc.frames {
				parts = append(parts, Part{Image: f})
			}
			parts = append(parts, Part{Text: "Q"})
			r := chatRequest{Model: "m", Messages: []Message{{Role: "user", Parts: parts}, {Role: "assistant", Content: "Answer:"}}, MaxTokens: 1, Video: tc.video}
			got, err := r.appendJSON(nil)
			if tc.bad {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := `{"model":"m","messages":[{"role":"user","content":` + tc.want + `},{"role":"assistant","content":"Answer:"}],"max_tokens":1,"temperature":0,"seed":0}`
			if string(got) != want {
				t.Errorf("body\n got %.400s\nwant %.400s", got, want)
			}
		})
	}
}

// TestAskVideoServers: a client sending frames as video is answered by a
// video-only server (vLLM's LLaVA-NeXT-Video), which receives the frames'
// very bytes in order, and refused by an images-only one; a client sending
// images, the other way round, with vLLM's messages. The two questions on
// one video share their request body up to the text after the frames.
func TestAskVideoServers(t *testing.T) {
	t.Parallel()
	frames := testFrames(t, 4)
	for _, tc := range []struct {
		name    string
		srv     openaitest.Config
		frames  string
		refusal string // "" when answered
	}{
		{"video to a video-only server", openaitest.Config{VideoOnly: true}, FramesVideo, ""},
		{"images to a video-only server", openaitest.Config{VideoOnly: true}, FramesImages, "At most 0 image(s) may be provided in one prompt."},
		{"video to an images-only server", openaitest.Config{ImagesOnly: true}, FramesVideo, "At most 0 video(s) may be provided in one prompt."},
		{"images to an images-only server", openaitest.Config{ImagesOnly: true}, "", ""},
		{"video to a text model", openaitest.Config{TextOnly: true}, FramesVideo, "test-model is not a multimodal model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := openaitest.New(tc.srv)
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.BaseURL(), Model: "test-model", Chat: true, MaxRetries: -1, Frames: tc.frames})
			if err != nil {
				t.Fatal(err)
			}
			q := Query{ID: "q", Frames: frames, Prompt: letters.Parts{Kind: letters.KindVisual, Frames: len(frames), Question: "What happens?", Options: []string{"a", "b"}}}
			_, err = c.Ask(context.Background(), q)
			var se *ServerError
			switch {
			case tc.refusal == "" && err != nil:
				t.Fatal(err)
			case tc.refusal != "" && (!errors.As(err, &se) || se.Message != tc.refusal):
				t.Fatalf("error %v, want the server's %q", err, tc.refusal)
			case tc.refusal != "":
				return
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			if tc.frames == FramesVideo {
				if last.Videos() != 1 || last.Images() != 0 || len(last.Messages[0].Videos[0]) != len(frames) {
					t.Fatalf("%d videos, %d images; want the %d frames as one video", last.Videos(), last.Images(), len(frames))
				}
				for i, f := range last.Messages[0].Videos[0] {
					if !bytes.Equal(f.Data, frames[i].Data) {
						t.Errorf("video frame %d differs from the frame sent there", i)
					}
				}
				if got := strings.Join(last.Messages[0].Parts, ","); got != "video_url,text" {
					t.Errorf("parts %s, want video_url,text", got)
				}
			} else if last.Images() != len(frames) || last.Videos() != 0 {
				t.Errorf("%d images, %d videos; want %d images", last.Images(), last.Videos(), len(frames))
			}
			// A second question on the same video: the bodies agree up to
			// the text part, which follows the frames.
			q2 := q
			q2.Prompt.Question = "What happens next?"
			if _, err := c.Ask(context.Background(), q2); err != nil {
				t.Fatal(err)
			}
			reqs = srv.Requests()
			a, b := reqs[len(reqs)-2].Body, reqs[len(reqs)-1].Body
			n := 0
			for n < len(a) && n < len(b) && a[n] == b[n] {
				n++
			}
			if text := bytes.Index(a, []byte(`{"type":"text"`)); text < 0 || n < text {
				t.Errorf("the two questions' bodies share %d bytes; the frames end at %d", n, text)
			}
		})
	}
}

// TestCheckInputKinds: Check finds which input kinds the server takes for
// the model, and Frames which to send.
func TestCheckInputKinds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		srv    openaitest.Config
		inputs string
		frames string
	}{
		{"both", openaitest.Config{}, "text,images,video", FramesImages},
		{"video only", openaitest.Config{VideoOnly: true}, "text,video", FramesVideo},
		{"images only", openaitest.Config{ImagesOnly: true}, "text,images", FramesImages},
		{"text only", openaitest.Config{TextOnly: true}, "text", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := openaitest.New(tc.srv)
			defer srv.Close()
			rep, err := Check(context.Background(), Config{BaseURL: srv.BaseURL(), Model: "test-model", Chat: true, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rep.Inputs(), ","); got != tc.inputs || rep.Frames() != tc.frames {
				t.Errorf("inputs %s, frames %q; want %s, %q (refusals: images %q, video %q)", got, rep.Frames(), tc.inputs, tc.frames, rep.ImagesRefusal, rep.VideoRefusal)
			}
			if !rep.Video && rep.VideoRefusal == "" || !rep.Images && rep.ImagesRefusal == "" {
				t.Errorf("a refused kind without the server's message: %+v", rep)
			}
		})
	}
	if _, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Frames: "videos"}); err == nil || !strings.Contains(err.Error(), `frames "videos" is neither "images" nor "video"`) {
		t.Errorf("Frames %q: %v", "videos", err)
	}
}
