package run

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/letters"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
	"github.com/vidscreen/vidscreen/models/served"
)

// noteWarn records what servedLines says.
type noteWarn struct{ notes, warns []string }

func (r *noteWarn) Note(msg string, args ...any) {
	r.notes = append(r.notes, fmt.Sprint(append([]any{msg}, args...)...))
}
func (r *noteWarn) Warn(msg string, args ...any) { r.warns = append(r.warns, msg) }

// TestServedLinesWarnRefits: a served VLM whose server refused prompts as
// too long gets one warning at the end of the run, with the count of
// refitted prompts and InternVL's fix; a role with none gets no warning.
func TestServedLinesWarnRefits(t *testing.T) {
	t.Parallel()
	srv := openaitest.New(openaitest.Config{Models: []string{"OpenGVLab/InternVL3-8B"}, ContextLength: 2*100 + 150, ImageTokens: 100})
	defer srv.Close()
	var readers []servedReader
	for _, role := range []string{"vlm_reader", "screen_reader"} {
		v, err := served.NewVLM(served.Config{Role: role, Server: models.ServerSettings{URL: srv.BaseURL(), Model: "OpenGVLab/InternVL3-8B", Concurrency: 2, Timeout: 10 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		readers = append(readers, v)
	}
	ctx := context.Background()
	v := readers[0].(*served.VLM)
	for k := range 3 { // three videos of 8 frames: each prompt refitted to 2
		var frames []imageprep.Frame
		for j := range 8 {
			pix := make([]byte, 3*32*18)
			for i := range pix {
				pix[i] = byte(k*40 + j*3 + i%5)
			}
			frames = append(frames, imageprep.Frame{Pix: pix, Width: 32, Height: 18})
		}
		b, err := v.Frames(ctx, frames)
		if err != nil {
			t.Fatal(err)
		}
		lp := letters.New(letters.Parts{Kind: letters.KindVisual, Frames: 8, Question: "What happens?", Options: []string{"one", "two"}})
		p := models.VLMPrompt{Text: strings.Repeat(models.ImagePlaceholder, 8) + lp.Text, Images: b, Options: 2, Parts: lp.Parts}
		if _, err := v.Score(ctx, []models.VLMPrompt{p}); err != nil {
			t.Fatal(err)
		}
	}
	rep := &noteWarn{}
	lines := servedLines(readers, rep)
	if len(lines) != 2 || lines[0].Refitted != 6 || lines[1].Refitted != 0 {
		t.Fatalf("lines %+v; want vlm_reader refitted 6 times (3 prompts, 8 to 4 to 2 frames), screen_reader none", lines)
	}
	if len(rep.warns) != 1 || !strings.Contains(rep.warns[0], "vlm_reader (model OpenGVLab/InternVL3-8B): the server refused 6 prompts") ||
		!strings.Contains(rep.warns[0], `--mm-processor-kwargs '{"max_dynamic_patch": 1}'`) {
		t.Errorf("warnings %q; want one for vlm_reader with its count and InternVL's fix", rep.warns)
	}
}
