package conformance

import (
	"context"
	"testing"

	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestVideoURLAsVLLMReadsIt: a query's frames sent as one video_url part
// (server_frames "video") are, read as vLLM reads its video/jpeg frame list
// (split at the commas, each piece a JPEG opened with Pillow), the very
// frames, in order and pixel for pixel, that the image_url parts of the same
// query carry; SGLang's video loader, which base64-decodes everything after
// the first comma strictly, refuses the list of more than one frame, which
// is why docs/models.md says to keep "images" against SGLang.
func TestVideoURLAsVLLMReadsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		w, h   int
		wantWH [2]int // the frames' size as sent (long side 448 at most)
	}{
		{"one frame", 1, 320, 180, [2]int{320, 180}},
		{"three 640x360", 3, 640, 360, [2]int{448, 252}},
		{"eight portrait", 8, 480, 640, [2]int{336, 448}},
		{"thirty-two 1280x720", 32, 1280, 720, [2]int{448, 252}},
		{"five tiny odd", 5, 17, 9, [2]int{17, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			frames := make([]*openai.Image, tc.n)
			for k := range frames {
				pix := make([]byte, 3*tc.w*tc.h)
				for i := range pix {
					x, y := (i/3)%tc.w, (i/3)/tc.w
					pix[i] = byte(x*255/tc.w + y*7 + k*31 + (i%3)*60 + (x*y)%13)
				}
				im, err := openai.EncodeFrame(pix, tc.w, tc.h, 0)
				if err != nil {
					t.Fatal(err)
				}
				frames[k] = im
			}
			bodies := map[string]string{}
			for _, kind := range []string{openai.FramesVideo, openai.FramesImages} {
				srv := openaitest.New(openaitest.Config{})
				c, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "test-model", Chat: true, MaxRetries: -1, Frames: kind})
				if err != nil {
					t.Fatal(err)
				}
				q := openai.Query{ID: "q", Frames: frames, Prompt: letters.Parts{Kind: letters.KindVisual, Frames: tc.n, Question: "What happens?", Options: []string{"one", "two"}}}
				if _, err := c.Ask(context.Background(), q); err != nil {
					t.Fatal(err)
				}
				reqs := srv.Requests()
				bodies[kind] = string(reqs[len(reqs)-1].Body)
				srv.Close()
			}
			var out struct {
				VideoFrames int      `json:"video_frames"`
				ImageFrames int      `json:"image_frames"`
				Sizes       [][2]int `json:"sizes"`
				MaxDiff     int      `json:"max_diff"`
				SGLangError string   `json:"sglang_error"`
			}
			runPillow(t, "videourl.py", map[string]string{"video_body": bodies[openai.FramesVideo], "images_body": bodies[openai.FramesImages]}, &out)
			if out.VideoFrames != tc.n || out.ImageFrames != tc.n || out.MaxDiff != 0 {
				t.Errorf("vLLM's reading: %d video frames, %d image frames, max pixel difference %d; want %d, %d, 0", out.VideoFrames, out.ImageFrames, out.MaxDiff, tc.n, tc.n)
			}
			for i, s := range out.Sizes {
				if s != tc.wantWH {
					t.Errorf("frame %d is %dx%d, want %dx%d", i, s[0], s[1], tc.wantWH[0], tc.wantWH[1])
				}
			}
			if (out.SGLangError != "") != (tc.n > 1) {
				t.Errorf("SGLang's strict base64 of the list of %d frames: error %q", tc.n, out.SGLangError)
			}
			t.Logf("%d frames: vLLM reads the video as the images (max difference %d); SGLang: %q", tc.n, out.MaxDiff, out.SGLangError)
		})
	}
}
