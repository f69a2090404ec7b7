package decode_test

import (
	"context"
	"fmt"
	"log"

	"github.com/vidscreen/vidscreen/decode"
)

// A whole pipeline: plan 32 uniform frames per video at short side 224,
// decode on a pool, and hand each frame set to its consumers in job order.
func ExamplePool_Run() {
	uniform, err := decode.ParseSampler("uniform:32")
	if err != nil {
		log.Fatal(err)
	}
	var jobs []decode.Job
	for _, path := range []string{"../../shared/data/videos/smpte-2997.mp4", "missing.mp4"} {
		jobs = append(jobs, decode.Job{Path: path, Sampler: uniform, Size: decode.Size{Short: 224}})
	}
	pool := &decode.Pool{Workers: 2}
	err = pool.Run(context.Background(), jobs, func(r *decode.Result) error {
		if r.Err != nil {
			fmt.Printf("job %d failed: %s\n", r.Index, decode.KindOf(r.Err))
			return nil // record the reason, go on with the run
		}
		f := r.Frames[0]
		fmt.Printf("job %d: %d frames of %dx%d, first at %v\n", r.Index, len(r.Frames), f.Width, f.Height, f.PTS)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// With the repository's sample videos beside it, this prints:
	//   job 0: 32 frames of 398x224, first at 0s
	//   job 1 failed: missing
}
