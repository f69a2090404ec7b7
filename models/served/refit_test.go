package served

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// TestVLMRefitsAPromptTooLong: a prompt the server refuses as too long for
// its model (vLLM's and SGLang's context refusals, vLLM's image limit) is
// asked again with every second frame until it fits, the user text saying
// how many it now shows; a prompt that fits is asked once; one refused even
// with a single frame fails alone (no row). The refusals are stored, so a
// second reader over the same store (a resumed run) asks nothing and gives
// the same rows.
func TestVLMRefitsAPromptTooLong(t *testing.T) {
	const per = 100 // tokens an image costs
	for _, tc := range []struct {
		name string
		cfg  openaitest.Config
		// want is the image counts of the requests of the 8-frame prompt,
		// in order; fits is the frame count it is answered with (0: none).
		want []int
		fits int
	}{
		{"fits at once", openaitest.Config{ContextLength: 100000, ImageTokens: per}, []int{8}, 8},
		{"vLLM's context", openaitest.Config{ContextLength: 2*per + 150, ImageTokens: per}, []int{8, 4, 2}, 2},
		{"SGLang's context", openaitest.Config{ContextLength: 2*per + 150, ImageTokens: per, Flavor: openaitest.FlavorSGLang}, []int{8, 4, 2}, 2},
		{"vLLM's image limit", openaitest.Config{MaxImages: 5}, []int{8, 4}, 4},
		{"not even one frame", openaitest.Config{ContextLength: per, ImageTokens: per}, []int{8, 4, 2, 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Answer = favourRight
			srv := openaitest.New(tc.cfg)
			defer srv.Close()
			path := filepath.Join(t.TempDir(), "replies.store")
			score := func() ([][]float64, StatsSnapshot) {
				st := NewStore(path)
				defer st.Close()
				v, err := NewVLM(Config{Role: "vlm_reader", Server: settings(srv.BaseURL(), 4, 0), Store: st})
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				var frames []imageprep.Frame
				for k := range 8 {
					frames = append(frames, frame(64, 36, byte(20*k)))
				}
				eight, err := v.Frames(ctx, frames)
				if err != nil {
					t.Fatal(err)
				}
				none, _ := v.Frames(ctx, nil)
				vp := func(imgs models.ImageBatch, right int) models.VLMPrompt {
					return vprompt(imgs, right, 4, "What happens?")
				}
				got, err := v.Score(ctx, []models.VLMPrompt{vp(eight, 1), vp(none, 3)})
				if err != nil {
					t.Fatal(err)
				}
				return got, v.Stats().Snapshot()
			}
			got, st := score()
			var counts []int
			for _, r := range srv.Requests() {
				if r.Images() == 0 {
					continue
				}
				counts = append(counts, r.Images())
				if n := r.Images(); !strings.Contains(r.User(), fmt.Sprintf("given %d frame(s) sampled", n)) {
					t.Errorf("a request of %d images says %q", n, r.User())
				}
			}
			if fmt.Sprint(counts) != fmt.Sprint(tc.want) {
				t.Errorf("the 8-frame prompt was sent with %v images, want %v", counts, tc.want)
			}
			if best(got[1]) != 3 {
				t.Errorf("the text prompt answered %v, want letter 3", got[1])
			}
			switch {
			case tc.fits == 0 && (got[0] != nil || st.Failed != 1):
				t.Errorf("refused at one frame: row %v, %d failed; want no row and one failure", got[0], st.Failed)
			case tc.fits > 0 && (got[0] == nil || best(got[0]) != 1 || st.Failed != 0):
				t.Errorf("row %v, %d failed; want letter 1 answered", got[0], st.Failed)
			}
			if st.Refitted != len(tc.want)-1 {
				t.Errorf("refitted %d, want %d", st.Refitted, len(tc.want)-1)
			}
			srv.Reset()
			again, _ := score()
			if n := len(srv.Requests()); n != 0 || fmt.Sprint(again) != fmt.Sprint(got) {
				t.Errorf("resumed over the store: %d requests, rows %v; want none and %v", n, again, got)
			}
		})
	}
}

// TestStatsCountFlooredAnswers: stages.json's floored counts the answers
// one of whose option letters was not among the server's top candidates
// and got the authors' floor; an answer with every letter among them is
// not counted.
func TestStatsCountFlooredAnswers(t *testing.T) {
	srv := openaitest.New(openaitest.Config{Answer: func(r *openaitest.Request) openaitest.Reply {
		top := map[string]float64{"A": 0.5, "B": 0.2, "C": 0.1}
		if strings.Contains(r.User(), "q-crowded") {
			for i := range 30 { // crowd B and C out of the top 20
				top[fmt.Sprintf("tok%02d", i)] = 0.3
			}
		}
		return openaitest.Reply{Top: top}
	}})
	defer srv.Close()
	l, err := NewLetters(Config{Role: "lm_reader", Server: settings(srv.BaseURL(), 2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	var ps []letters.Prompt
	for _, q := range []string{"q-crowded 1", "q-plain 1", "q-crowded 2", "q-plain 2", "q-plain 3"} {
		ps = append(ps, prompt(0, 3, q, ""))
	}
	if _, err := l.Score(context.Background(), ps); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats().Snapshot(); st.Floored != 2 || st.Queries != 5 {
		t.Errorf("stats %+v, want 2 of 5 answers floored", st)
	}
}

// TestVideosInFlight: the feature stage scores enough videos at once for
// server_concurrency requests to be in flight at about 16 prompts a video,
// one at the default 8, at most 8.
func TestVideosInFlight(t *testing.T) {
	for _, tc := range []struct{ conc, want int }{{1, 1}, {8, 1}, {16, 1}, {17, 2}, {64, 4}, {128, 8}, {4096, 8}} {
		v, err := NewVLM(Config{Role: "vlm_reader", Server: settings("http://127.0.0.1:1/v1", tc.conc, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.VideosInFlight(); got != tc.want {
			t.Errorf("concurrency %d: %d videos in flight, want %d", tc.conc, got, tc.want)
		}
	}
}
