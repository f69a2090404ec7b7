package served

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestVLMSendsFramesAsVideo: a reader whose entry sets server_frames
// "video" is answered by a video-only server (vLLM's LLaVA-NeXT-Video) with
// each prompt's frames as one video part in the prompt's order, and a
// prompt too long for the model is refitted as with images, the video
// halved; the same reader sending images is refused there. The role's name
// says that the frames go as video, so its cached scores are its own.
func TestVLMSendsFramesAsVideo(t *testing.T) {
	t.Parallel()
	const per = 100 // tokens a frame costs
	for _, tc := range []struct {
		name   string
		frames string
		srv    openaitest.Config
		want   []int // frames per request of the 8-frame prompt
		failed int
	}{
		{"video", models.ServerFramesVideo, openaitest.Config{VideoOnly: true}, []int{8}, 0},
		{"video refitted", models.ServerFramesVideo, openaitest.Config{VideoOnly: true, ContextLength: 2*per + 150, ImageTokens: per}, []int{8, 4, 2}, 0},
		{"images to a video-only model", models.ServerFramesImages, openaitest.Config{VideoOnly: true}, []int{8}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.srv.Answer = favourRight
			srv := openaitest.New(tc.srv)
			defer srv.Close()
			s := settings(srv.BaseURL(), 4, 0)
			s.Frames = tc.frames
			v, err := NewVLM(Config{Role: "vlm_reader", Server: s})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var frames []imageprep.Frame
			for k := range 8 {
				frames = append(frames, frame(64, 36, byte(25*k)))
			}
			eight, err := v.Frames(ctx, frames)
			if err != nil {
				t.Fatal(err)
			}
			p := vprompt(eight, 2, 4, "What happens?")
			rows, err := v.Score(ctx, []models.VLMPrompt{p})
			if err != nil {
				t.Fatal(err)
			}
			var counts []int
			var sent [][]byte
			for _, r := range srv.Requests() {
				if r.Path != "/v1/chat/completions" {
					continue
				}
				counts = append(counts, r.Images()+r.VideoFrames())
				if tc.frames == models.ServerFramesVideo {
					if r.Videos() != 1 || r.Images() != 0 {
						t.Errorf("a request with %d videos and %d images; want one video", r.Videos(), r.Images())
					}
					for _, f := range r.Messages[0].Videos[0] {
						sent = append(sent, f.Data)
					}
				}
			}
			if fmt.Sprint(counts) != fmt.Sprint(tc.want) {
				t.Errorf("the 8-frame prompt was sent with %v frames, want %v", counts, tc.want)
			}
			st := v.Stats().Snapshot()
			if (st.Frames == "video") != (tc.frames == models.ServerFramesVideo) {
				t.Errorf("stats say frames %q for server_frames %q", st.Frames, tc.frames)
			}
			if st.Failed != tc.failed || st.Refitted != len(tc.want)-1 {
				t.Errorf("%d failed, %d refitted; want %d, %d", st.Failed, st.Refitted, tc.failed, len(tc.want)-1)
			}
			if tc.failed == 0 && (rows[0] == nil || best(rows[0]) != 2) {
				t.Errorf("row %v, want letter 2 answered", rows[0])
			}
			if tc.frames == models.ServerFramesVideo && len(sent) > 0 {
				// The first request's video holds the 8 frames in order.
				want, err := v.frames.get(eight)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if string(sent[i]) != string(want[i].Data) {
						t.Errorf("video frame %d is not the prompt's frame %d", i, i)
					}
				}
			}
			name := Name("vlm_reader", s)
			if strings.Contains(name, ":frames=video") != (tc.frames == models.ServerFramesVideo) {
				t.Errorf("name %s for server_frames %q", name, tc.frames)
			}
		})
	}
}

// TestRefitWarning: a role that refitted prompts is warned about with the
// count and the fix, InternVL's being one tile a frame with the vLLM flag
// that sets it; none is warned about without refits.
func TestRefitWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, model string
		refitted    int
		want        []string // "" alone: no warning
	}{
		{"none", "OpenGVLab/InternVL3-8B", 0, []string{""}},
		{"InternVL", "OpenGVLab/InternVL3-8B", 37, []string{"vlm_reader (model OpenGVLab/InternVL3-8B): the server refused 37 prompts", `--mm-processor-kwargs '{"max_dynamic_patch": 1}'`, `"server_frames": "video"`, "SGLang", "--context-length"}},
		{"InternVL by a local path", "/models/internvl2_5-8b", 1, []string{"refused 1 prompts", "max_dynamic_patch"}},
		{"another model", "Qwen/Qwen2.5-VL-7B-Instruct", 5, []string{"refused 5 prompts", "vllm serve --max-model-len, sglang --context-length"}},
	} {
		got := StatsSnapshot{Role: "vlm_reader", Model: tc.model, Refitted: tc.refitted}.RefitWarning()
		if tc.want[0] == "" {
			if got != "" {
				t.Errorf("%s: warned %q", tc.name, got)
			}
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: warning lacks %q:\n%s", tc.name, w, got)
			}
		}
		if strings.Contains(got, "max_dynamic_patch") != isInternVL(tc.model) {
			t.Errorf("%s: InternVL's fix given to %s:\n%s", tc.name, tc.model, got)
		}
	}
}
