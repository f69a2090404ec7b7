package vidomni

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/vidscreen/vidscreen/decode"
	"github.com/vidscreen/vidscreen/models/imageprep"
)

// FrameSampler decodes the frames a sampler picks from each video, the way
// the audit's frame levels do (decode.Pool, job order kept, each GOP
// decoded at most once), for the local verifier and caption writer.
type FrameSampler struct {
	Pool    *decode.Pool
	Sampler decode.Sampler // e.g. uniform:8
	Size    decode.Size    // what the decoder scales to before the model's own preprocessing
	// Root is the directory relative video paths are under.
	Root string
}

// Each decodes the videos in order and calls fn with each one's frames.
// A video that cannot be decoded is handed to failed with the reason (a
// *decode.VideoError for a bad file) and the others go on; an error from
// fn or failed, or the context's, stops Each.
func (s *FrameSampler) Each(ctx context.Context, videos []string, fn func(i int, frames []imageprep.Frame) error, failed func(i int, err error) error) error {
	jobs := make([]decode.Job, len(videos))
	for i, v := range videos {
		jobs[i] = decode.Job{Path: s.path(v), Sampler: s.Sampler, Size: s.Size}
	}
	pool := s.Pool
	if pool == nil {
		pool = &decode.Pool{}
	}
	return pool.Run(ctx, jobs, func(r *decode.Result) error {
		if r.Err != nil {
			return failed(r.Index, r.Err)
		}
		if len(r.Frames) == 0 {
			return failed(r.Index, fmt.Errorf("%s: the sampler picked no frame", r.Job.Path))
		}
		frames := make([]imageprep.Frame, len(r.Frames))
		for k, f := range r.Frames {
			frames[k] = imageprep.Frame{Pix: f.RGB, Width: f.Width, Height: f.Height}
		}
		return fn(r.Index, frames)
	})
}

// path is where a video named in the inputs is.
func (s *FrameSampler) path(video string) string {
	if !filepath.IsAbs(video) && s.Root != "" {
		return filepath.Join(s.Root, video)
	}
	return video
}

// uniqueVideos lists the pairs' videos once each, in first-appearance
// order, and maps each pair to its video's index.
func uniqueVideos(pairs []*Pair) (videos []string, of []int) {
	at := map[string]int{}
	of = make([]int, len(pairs))
	for i, p := range pairs {
		k, ok := at[p.Video]
		if !ok {
			k = len(videos)
			at[p.Video] = k
			videos = append(videos, p.Video)
		}
		of[i] = k
	}
	return videos, of
}
