package decode

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestProbeSaysTruncated: an MP4 cut at half its size (index first) used to
// probe as complete, all frames and the full duration. Probe says it is
// truncated and how much is readable; frames within that decode, frames
// past it fail the video with KindTruncated.
func TestProbeSaysTruncated(t *testing.T) {
	ctx := context.Background()
	whole, err := Probe(ctx, testVideoPath(t, "h264_faststart.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	if whole.Truncated || whole.Readable != 0 {
		t.Errorf("a complete file probes as truncated: %+v", whole)
	}
	path := testVideoPath(t, "truncated_faststart.mp4")
	in, err := Probe(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("declared %v (%d frames), readable %v (%d frames)", in.Duration, in.Frames, in.Readable, in.ReadableFrames)
	if !in.Truncated || in.Readable <= 0 || in.Readable >= in.Duration || in.ReadableFrames <= 0 || in.ReadableFrames >= in.Frames {
		t.Fatalf("probe of a file cut at 50%%: %+v, want Truncated with 0 < Readable < Duration", in)
	}
	d, err := Open(ctx, path, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	inside := in.Readable - 100*time.Millisecond
	frames, err := d.Frames(ctx, []time.Duration{0, inside / 2, inside}, Size{Short: 32}, nil)
	if err != nil {
		t.Fatalf("frames within the readable %v: %v", in.Readable, err)
	}
	if last := frames[2].PTS; last > inside || inside-last > 100*time.Millisecond {
		t.Errorf("time %v gave the frame at %v", inside, last)
	}
	_, err = d.Frames(ctx, []time.Duration{in.Duration - 100*time.Millisecond}, Size{Short: 32}, nil)
	var ve *VideoError
	if !errors.As(err, &ve) || ve.Kind != KindTruncated {
		t.Errorf("a time past the readable part: %v, want KindTruncated", err)
	}
}
