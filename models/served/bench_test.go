package served

import (
	"context"
	"fmt"
	"testing"

	"github.com/vidscreen/vidscreen/models"
	"github.com/vidscreen/vidscreen/models/imageprep"
	"github.com/vidscreen/vidscreen/models/openai/openaitest"
)

// BenchmarkVLMGroup scores one video's group as the feature stage asks it
// (16 prompts: 4 items under the centre frame and 3 sets of 32 frames)
// against the in-process test server at 1, 8 and 64 requests in flight;
// it reports requests/s and the prefix share.
func BenchmarkVLMGroup(b *testing.B) {
	srv := openaitest.New(openaitest.Config{Answer: favourRight})
	defer srv.Close()
	frames := make([]imageprep.Frame, 32)
	for i := range frames {
		frames[i] = frame(640, 360, byte(4*i))
	}
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			v, err := NewVLM(Config{Role: "vlm_reader", Server: settings(srv.BaseURL(), conc, 0)})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			all, _ := v.Frames(ctx, frames)
			centre, _ := v.Frames(ctx, frames[16:17])
			rev := make([]imageprep.Frame, 32)
			for i := range rev {
				rev[i] = frames[31-i]
			}
			shuffled, _ := v.Frames(ctx, rev)
			var ps []models.VLMPrompt
			for item := range 4 {
				for _, imgs := range []models.ImageBatch{centre, all, shuffled, all} {
					ps = append(ps, vprompt(imgs, item%4, 4, fmt.Sprintf("question %d", item)))
				}
			}
			b.ResetTimer()
			for range b.N {
				if _, err := v.Score(ctx, ps); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s := v.Stats().Snapshot()
			b.ReportMetric(s.RequestsPerSecond(), "requests/s")
			b.ReportMetric(s.PrefixShare(), "prefix-share")
		})
	}
}
